import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChaosReport } from '../../bench/chaos/chaos-report.js';

const root = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'isync-chaos-test-'));

/** Runs `npm run chaos:short` as a child process (its own redis-server, sandbox, feed, workers, dashboard). */
function runShortChaos(): Promise<{ code: number | null; output: string; report: ChaosReport }> {
  const json = join(dir, 'report.json');
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'bench/chaos/run.ts', '--short', '--json', json, '--log-dir', join(dir, 'logs')],
      {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', fail);
    child.once('exit', (code) => {
      try {
        done({ code, output, report: JSON.parse(readFileSync(json, 'utf8')) as ChaosReport });
      } catch (err) {
        fail(new Error(`chaos wrote no report (exit ${code}):\n${output.slice(-4000)}`, { cause: err }));
      }
    });
  });
}

describe('chaos (short run)', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  describe('when workers are killed, Redis restarts and the service misbehaves, with three accounts by turns', () => {
    it('syncs every good record exactly once (fed or imported), fails every bad one with its field, and leaks no secret', async () => {
      const { code, output, report } = await runShortChaos();
      const violations = report.checks.flatMap((c) => c.violations.map((v) => `${c.name}: ${v}`));
      expect(violations, output.slice(-4000)).toEqual([]);
      expect(code).toBe(0);
      // The run really did what it claims: kills, a Redis restart, faults fired and every rule checked.
      const injected = Object.fromEntries(report.injected.map((i) => [i.what, i.count]));
      expect(injected['worker SIGKILLs']).toBe(2);
      // Workers frozen past the job lock, then thawed (issue 50): their jobs taken over, nothing written twice.
      expect(injected['worker freezes (SIGSTOP past the job lock, then SIGCONT)']).toBe(2);
      expect(injected['Redis restarts (SHUTDOWN, start again)']).toBe(1);
      expect(injected['service fault: apply-then-drop']).toBeGreaterThan(0);
      // The key was revoked halfway: the orders stream paused and `resume` alone brought it back (issue 20).
      expect(injected['API key revoked (every request 401)']).toBeGreaterThanOrEqual(10);
      expect(report.checks.find((c) => c.name.startsWith('a revoked API key pauses'))?.checked).toBe(1);
      expect(report.checks.length).toBeGreaterThanOrEqual(25);
      expect(report.checks.find((c) => c.name.startsWith('each good order exists once'))?.checked).toBe(300);
      // 30 order lives beside them, told as snapshots: open, edited, shipped in two parts, returned; or cancelled.
      expect(report.checks.find((c) => c.name.startsWith('each order life exists once'))?.checked).toBe(30);
      expect(report.checks.find((c) => c.name.startsWith('each restocked return'))?.checked).toBe(40);
      // A quarter of the orders came through the real `import` during the storm, then again once drained.
      expect(injected['imported records: orders']).toBeGreaterThan(75);
      expect(report.checks.find((c) => c.name.startsWith('the import'))?.checked).toBeGreaterThanOrEqual(1);
      expect(report.checks.find((c) => c.name.startsWith('the same file imported again'))?.checked).toBe(1);
      expect(report.checks.find((c) => c.name.startsWith('every intake queue ends empty'))?.checked).toBe(3);
      // Three accounts by turns (ACCOUNTS_FILE): every rule per account, each against its own service and feed.
      expect(report.options.accounts).toBe(3);
      for (const other of ['shop-2', 'shop-3']) {
        expect(report.checks.find((c) => c.name.startsWith(`${other}: each good order exists once`))?.checked).toBe(60);
        expect(report.checks.find((c) => c.name.startsWith(`${other}: reconcile finds no drift`))?.checked).toBeGreaterThan(0);
      }
      // The turns' own rules: one account's revoked key and outage held none of the others' orders (released then),
      // every account with work got its turn, and a kill mid-turn lost no account.
      expect(report.checks.find((c) => c.name.startsWith("one account's fault holds none"))?.checked).toBe(4);
      expect(report.checks.find((c) => c.name.startsWith('every account with work gets its turn'))?.checked).toBe(3);
      expect(report.checks.find((c) => c.name.startsWith('a worker killed mid-turn loses no account'))).toBeDefined();
    }, 420_000);
  });
});
