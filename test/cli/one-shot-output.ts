import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Job } from 'bullmq';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderRecord } from '../helpers/order-records.js';
import type { SandboxData } from '../../src/sandbox/sandbox-data-schema.js';
import { collect, spawnCli, type CliRun } from './run-cli.js';
import { startStack, type Stack } from './stack.js';
import { runInTerminal, screenText, tableAfter } from './terminal.js';

/**
 * Issue 48: what a person sees of the one-shot commands, on a terminal (a pseudo-terminal, `script`) and off one (a
 * pipe): their output and no info-level log record between its lines, every figure of the summary equal to what the run
 * did (read back from the queues), the exit codes the interface gives; a file with bad records imported twice exits 1
 * both times, and never says that every record synced.
 */

const good = Array.from({ length: 5 }, (_, i) => orderRecord(`TT-${i + 1}`));
const unknownProduct = orderRecord('TT-BAD', [{ productId: 'MUG-TEAL', quantity: 1, unitPrice: 9, location: 'Main Warehouse / A-01' }]);
const lines = [...good.map((o) => JSON.stringify(o)), JSON.stringify(unknownProduct), '{"orderId": "TT-CUT",', JSON.stringify(good[0])];

/** A pino record written for a person (`12:00:00.000 INFO (123): ...`) or as JSON (`"level":30`). */
const INFO_RECORD = /\bINFO\b|"level":30\b/;

/** Off a terminal: the program as a child whose stdout and stderr are pipes; the person's view is both. */
async function piped(args: string[], env: Record<string, string>): Promise<CliRun & { screen: string }> {
  const r = await collect(spawnCli(args, env), { timeoutMs: 90_000 });
  return { ...r, screen: `${r.stdout}\n${r.stderr}` };
}
async function onTerminal(args: string[], env: Record<string, string>): Promise<CliRun & { screen: string }> {
  const r = await runInTerminal(args, env, { timeoutMs: 90_000 });
  return { ...r, screen: screenText(r.stdout) };
}
const RUNS = { 'on a terminal': onTerminal, 'off a terminal': piped } as const;

/** How the orders queue says each job ended: what a truthful summary's figures are. */
async function truth(stack: Stack) {
  const q = new Queue('orders', { connection: stack.redis, prefix: stack.prefix });
  try {
    const completed = (await q.getJobs(['completed'])) as Job[];
    const failed = (await q.getJobs(['failed'])) as Job[];
    const outcome = (o: string) => completed.filter((j) => (j.returnvalue as { outcome?: string }).outcome === o).length;
    return {
      synced: outcome('synced'),
      unchanged: outcome('unchanged'),
      skipped: outcome('skipped'),
      failedIds: failed.map((j) => String(j.id)).sort(),
      jobs: completed.length + failed.length,
    };
  } finally {
    await q.close();
  }
}

/** The ids of the jobs a summary lists under a heading (the JOB column of the table after it). */
function listedIds(screen: string, heading: string): string[] {
  const at = screen.indexOf(heading);
  if (at < 0) return [];
  return tableAfter(screen.slice(at + heading.length + 1), 'STREAM')
    .map((r) => r.JOB!)
    .sort();
}

/** The suite of one mode (a file each, so that the two run side by side). */
export function describeOneShotCommands(mode: keyof typeof RUNS): void {
  const run = RUNS[mode];
  describe(`the one-shot commands ${mode}`, () => {
    let stack: Stack;
    let env: Record<string, string>;
    let file: string;

    beforeAll(async () => {
      stack = await startStack({ orders: [] }, `tty-${mode === 'on a terminal' ? 'pty' : 'pipe'}`);
      // The defaults a person has: no LOG_LEVEL (the suite's own children run with LOG_LEVEL=warn).
      const { LOG_LEVEL: _quiet, ...rest } = stack.env;
      // No slow start and room for reconcile's collection reads: what is shown here is not the budget.
      env = { ...rest, INVENTORY_RATE_START_PERCENT: '100', INVENTORY_COLLECTION_PER_HOUR: '60000' };
      const dir = mkdtempSync(join(tmpdir(), 'isync-tty-'));
      file = join(dir, 'orders.ndjson');
      writeFileSync(file, `${lines.join('\n')}\n`);
    }, 60_000);
    afterAll(async () => {
      await stack?.close();
    });

    it("import --process: the output and no info record, figures that are the queue's, exit 1 for the bad records", async () => {
      const r = await run(['import', 'orders', file, '--process'], env);
      expect(r.code, r.screen).toBe(1);
      expect(r.screen).not.toMatch(INFO_RECORD);
      expect(r.screen).toContain('Imported 8 records of orders');
      expect(r.screen).toContain('7 new, 0 already queued before, 1 repeated in the file; 1 invalid record among them.');
      const t = await truth(stack);
      const [row] = tableAfter(r.screen, 'STREAM  RECORDS');
      expect(row).toMatchObject({
        STREAM: 'orders',
        RECORDS: String(t.jobs),
        SYNCED: String(t.synced),
        'ALREADY MATCHED': String(t.unchanged),
        SKIPPED: String(t.skipped),
        FAILED: String(t.failedIds.length),
      });
      expect([t.jobs, t.synced, t.failedIds.length]).toEqual([7, 5, 2]);
      expect(listedIds(r.screen, '2 records failed in this run:')).toEqual(t.failedIds);
      expect(r.screen).not.toMatch(/every record synced/i);
    });

    it('import --process of the same file again: nothing new, its failures told as remaining, exit 1, never "every record synced"', async () => {
      const r = await run(['import', 'orders', file, '--process'], env);
      expect(r.code, r.screen).toBe(1);
      expect(r.screen).not.toMatch(INFO_RECORD);
      expect(r.screen).toContain('0 new, 7 already queued before, 1 repeated in the file');
      const t = await truth(stack);
      const [row] = tableAfter(r.screen, 'STREAM  RECORDS');
      expect(row).toMatchObject({
        RECORDS: '7',
        SYNCED: '0',
        FAILED: '0',
        'SYNCED BEFORE': String(t.synced + t.unchanged),
        'FAILED BEFORE': String(t.failedIds.length),
      });
      expect(listedIds(r.screen, '2 records failed before this run and were not queued again')).toEqual(t.failedIds);
      expect(r.screen).toContain('orders: 5 records were synced before this run: nothing to do.');
      expect(r.screen).not.toMatch(/every record synced/i);
    });

    it('sync --once: the pulled records summed up as they ended, exit 0 when all synced; the dry run, exit 1 when one would fail', async () => {
      stack.feed.append('orders', [orderRecord('TT-FEED-1'), orderRecord('TT-FEED-2'), good[0]]);
      const dry = await run(['sync', '--once', '--dry-run', '--stream', 'orders'], env);
      expect(dry.code, dry.screen).toBe(0);
      expect(dry.screen).not.toMatch(INFO_RECORD);
      const r = await run(['sync', '--once', '--stream', 'orders'], env);
      expect(r.code, r.screen).toBe(0);
      expect(r.screen).not.toMatch(INFO_RECORD);
      expect(tableAfter(r.screen, 'STREAM  RECORDS')[0]).toMatchObject({ RECORDS: '3', SYNCED: '2', FAILED: '0', 'SYNCED BEFORE': '1' });
      expect(r.screen).toContain('orders: 1 record was synced before this run: nothing to do.');
      // The two failed jobs of the file are not this run's: said, and they do not change its code.
      expect(r.screen).toContain(
        'orders: 2 other failed jobs from earlier runs remain: inventory-sync jobs list --state failed --stream orders',
      );
      expect(r.screen).toContain('Every record synced.');

      stack.feed.append('orders', [{ ...unknownProduct, orderId: 'TT-FEED-BAD' }]);
      const bad = await run(['sync', '--once', '--dry-run', '--stream', 'orders'], env);
      expect(bad.code, bad.screen).toBe(1);
      expect(bad.screen).not.toMatch(INFO_RECORD);
      expect(bad.screen).toContain('TT-FEED-BAD');
    });

    it('reconcile: the report and no info record, exit 0 with no drift and 1 with one', async () => {
      const r = await run(['reconcile', '--stream', 'orders'], env);
      expect(r.code, r.screen).toBe(0);
      expect(r.screen).not.toMatch(INFO_RECORD);
      // An order changed in the service behind the program's back: a drift, exit 1.
      const state = stack.sandbox.admin.state();
      state.orders.find((o) => o.orderId === 'TT-FEED-1')!.statusId = 'ORDER_CANCELLED';
      stack.sandbox.admin.reset(JSON.parse(JSON.stringify(state)) as SandboxData);
      const drift = await run(['reconcile', '--stream', 'orders'], env);
      expect(drift.code, drift.screen).toBe(1);
      expect(drift.screen).not.toMatch(INFO_RECORD);
      expect(drift.screen).toMatch(/orders\s+TT-FEED-1\s+order-not-completed/);
    });
  });
}

/** Where the log records go instead: LOG_FILE, or the terminal with --verbose. */
export function describeLogRecords(): void {
  describe('the log records a one-shot command keeps out of its output', () => {
    let stack: Stack;
    let env: Record<string, string>;
    beforeAll(async () => {
      stack = await startStack({ orders: [orderRecord('LOG-1')] }, 'tty-log');
      const { LOG_LEVEL: _quiet, ...rest } = stack.env;
      env = rest;
    }, 60_000);
    afterAll(async () => {
      await stack?.close();
    });

    it('go to LOG_FILE as JSON lines, and to the terminal with --verbose', async () => {
      const logFile = join(mkdtempSync(join(tmpdir(), 'isync-logfile-')), 'sync.log');
      const quiet = await runInTerminal(['sync', '--once', '--stream', 'orders'], { ...env, LOG_FILE: logFile }, { timeoutMs: 90_000 });
      expect(quiet.code, quiet.stdout).toBe(0);
      expect(screenText(quiet.stdout)).not.toMatch(INFO_RECORD);
      const records = readFileSync(logFile, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { level: number; msg: string });
      expect(records.filter((x) => x.level === 30).map((x) => x.msg)).toContain('service write');
      // The same run told with --verbose: the records are between the lines, which is why they are not by default.
      stack.feed.append('orders', [orderRecord('LOG-2')]);
      const loud = await runInTerminal(['--verbose', 'sync', '--once', '--stream', 'orders'], env, { timeoutMs: 90_000 });
      expect(loud.code).toBe(0);
      expect(screenText(loud.stdout)).toMatch(/INFO.*service write/);
    });
  });
}
