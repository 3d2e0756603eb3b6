import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, inject, it } from 'vitest';
import { alertRules, DEPLOY, filesOf, RULE_TESTS_DIR, RULES_DIR } from './deploy-files.js';

/** promtool of Debian's prometheus package (test/setup/prometheus-setup.ts). */
const promtool = (args: string[]) => spawnSync(inject('promtoolPath'), args, { encoding: 'utf8', cwd: DEPLOY });

describe("deploy/'s Prometheus alerting rules", () => {
  it('pass promtool check rules, and the example configuration passes promtool check config', () => {
    const rules = promtool(['check', 'rules', ...filesOf(RULES_DIR, '.yml')]);
    expect(rules.status, rules.stdout + rules.stderr).toBe(0);
    const config = promtool(['check', 'config', join(DEPLOY, 'prometheus', 'prometheus.yml')]);
    expect(config.status, config.stdout + config.stderr).toBe(0);
  });

  it('pass promtool test rules: every file of tests/ (each alert firing when it should, with its words, and quiet when not)', () => {
    const tests = filesOf(RULE_TESTS_DIR, '.test.yml');
    const out = promtool(['test', 'rules', ...tests]);
    expect(out.status, out.stdout + out.stderr).toBe(0);
    expect(out.stdout.match(/SUCCESS/g)).toHaveLength(tests.length);
  });

  it('come one group a file, each file with its test, and every alert of it tested firing', () => {
    const rules = filesOf(RULES_DIR, '.yml');
    // A group added later (held calls, say) comes with its own file of tests.
    expect(rules.map((f) => basename(f, '.yml'))).toEqual(filesOf(RULE_TESTS_DIR, '.test.yml').map((f) => basename(f, '.test.yml')));
    for (const file of rules) {
      const groups = (parse(readFileSync(file, 'utf8')) as { groups: unknown[] }).groups;
      expect(groups, file).toHaveLength(1);
    }
    type Tests = { rule_files: string[]; tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts: unknown[] }> }> };
    const firing = new Set<string>();
    for (const file of filesOf(RULE_TESTS_DIR, '.test.yml')) {
      const t = parse(readFileSync(file, 'utf8')) as Tests;
      expect(t.rule_files, file).toEqual([`../rules/${basename(file, '.test.yml')}.yml`]);
      for (const c of t.tests) for (const a of c.alert_rule_test ?? []) if (a.exp_alerts.length) firing.add(a.alertname);
    }
    expect(
      alertRules()
        .map((r) => r.alert)
        .filter((a) => !firing.has(a)),
    ).toEqual([]);
  });

  it('cover what the issues name: failures, lag, holds, budget saturation, Redis memory, a worker missing, every account', () => {
    const byGroup = new Map<string, string[]>();
    for (const r of alertRules()) byGroup.set(r.group, [...(byGroup.get(r.group) ?? []), r.alert]);
    expect(Object.fromEntries(byGroup)).toMatchObject({
      'inventory-sync-jobs': expect.arrayContaining(['IsyncJobsFailing']),
      'inventory-sync-feed': ['IsyncFeedBehind'],
      'inventory-sync-holds': expect.arrayContaining(['IsyncStreamPaused', 'IsyncServiceDown']),
      'inventory-sync-budget': expect.arrayContaining(['IsyncBudgetSaturated']),
      'inventory-sync-redis': expect.arrayContaining(['IsyncRedisMemoryHigh']),
      'inventory-sync-worker': expect.arrayContaining(['IsyncWorkerMissing']),
      // Issue 56: the deployment's figures, over every account (most of them with no series of their own).
      'inventory-sync-deployment': [
        'IsyncDeploymentAccountsInTrouble',
        'IsyncDeploymentJobsFailing',
        'IsyncDeploymentQueuesPaused',
        'IsyncDeploymentCallsHeld',
        'IsyncDeploymentRecordsWaitingGrow',
        'IsyncDeploymentSummaryStale',
      ],
    });
    // promtool is the one judge of the syntax: the same version as the server the other test runs.
    expect(execFileSync(inject('promtoolPath'), ['--version'], { encoding: 'utf8' })).toMatch(/promtool, version \d+\./);
  });
});
