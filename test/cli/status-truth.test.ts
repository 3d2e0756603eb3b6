import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobIdFor } from '../../src/queue/job-id.js';
import { openStreamQueues } from '../../src/queue/stream-queues.js';
import { readAccountsStatus } from '../../src/ops/accounts-status.js';
import type { AccountsView } from '../../src/dashboard/accounts-board.js';
import type { AccountConfig } from '../../config/accounts.js';
import { programKinds } from '../../jobs/kinds.js';
import { countRecord } from '../helpers/count-record.js';
import { orderRecord } from '../helpers/order-records.js';
import { redisUrl } from '../helpers/redis.js';
import { testWorld, type TestWorld } from '../helpers/test-world.js';
import { orderKind } from '../../jobs/orders/order-kind.js';
import { stockCountKind } from '../../jobs/stock/stock-count-kind.js';
import { raw, startTestDashboard, type TestDashboard } from '../dashboard/dashboard-http.js';
import { baseEnv, runCli } from './run-cli.js';
import { startStack, type Stack } from './stack.js';

/**
 * Issue 55: `status`, the dashboard and `find` say one truth about failures, from the same state: a failure a newer
 * version of its record synced after is history, a job retried to success is no failure, identical causes are one
 * group; the dashboard's figures (its JSON, its overview, its charts' data) agree with `status --json`.
 */

interface StatusJson {
  streams: Array<{ stream: string; counts: { failed: number; completed: number }; superseded: number }>;
  failedGroups: Array<{ stream: string; code: string; reason: string; count: number; examples: string[]; retryHelps: boolean }>;
}
interface FlowJson {
  streams: Record<string, { failed: Array<[number, number | null]>; failedNow: number }>;
}

const stream = (s: StatusJson, name: string) => s.streams.find((x) => x.stream === name)!;
const failuresCharted = (f: FlowJson, name: string) => f.streams[name]!.failed.reduce((n, [, v]) => n + (v ?? 0), 0);

describe('status, the dashboard and find, after failures that are over and failures that are not', () => {
  let world: TestWorld;
  let t: TestDashboard;
  let env: Record<string, string>;
  // A count failed (an unknown product), then corrected: v2 synced. Another stays failed.
  const v1 = countRecord('TR-CNT-1', 'Main Warehouse / A-03', '2026-12-01', [['NO-SUCH-MUG', 3]]);
  const v2 = countRecord('TR-CNT-1', 'Main Warehouse / A-03', '2026-12-01', [['MUG-BLUE', 3]]);
  const stillBad = countRecord('TR-CNT-2', 'Main Warehouse / A-03', '2026-12-01', [['NO-SUCH-MUG', 1]]);
  // An order whose create met the service down on every attempt, retried by a person once it answered.
  const retried = orderRecord('TR-RETRIED');
  // Two orders the service refuses to complete alike: one cause, whatever the order.
  const refused = [orderRecord('TR-REFUSED-1'), orderRecord('TR-REFUSED-2')];

  const status = async (): Promise<StatusJson> => JSON.parse((await runCli(['status', '--json'], env)).stdout) as StatusJson;
  const dashboardStatus = async (): Promise<StatusJson> => JSON.parse((await raw(`${t.base}/api/status`)).body) as StatusJson;
  const flow = async (): Promise<FlowJson> => JSON.parse((await raw(`${t.base}/api/flow`)).body) as FlowJson;

  beforeAll(async () => {
    world = await testWorld('status-truth', { streams: ['orders', 'stock-counts'] });
    env = { ...baseEnv(), REDIS_URL: redisUrl(), QUEUE_PREFIX: world.prefix };
    await world.add('stock-counts', [v1, stillBad]);
    await world.idle();
    await world.add('stock-counts', [v2]);

    world.sandbox.admin.setFaults([{ kind: 'status-503', method: 'POST', path: '/api/order$' }]);
    await world.add('orders', [retried]);
    await world.idle();
    world.sandbox.admin.setFaults([{ kind: 'status-400', method: 'POST', path: '/complete$', msg: 'Orders cannot be completed today' }]);
    await world.add('orders', refused);
    await world.idle();
    world.sandbox.admin.setFaults([]);
    const retry = await runCli(['jobs', 'retry', jobIdFor(orderKind, retried)], env);
    expect(retry.code, retry.stderr).toBe(0);
    await world.idle();
    t = await startTestDashboard({ prefix: world.prefix });
  }, 90_000);

  afterAll(async () => {
    await t?.dashboard.close();
    t?.redis.disconnect();
    await world?.close();
  });

  describe('when a count failed and a newer version of it synced', () => {
    it('counts it as history in status --json, not as failed, and groups only the failure that is not over', async () => {
      const s = await status();
      expect(stream(s, 'stock-counts')).toMatchObject({ counts: { failed: 1, completed: 1 }, superseded: 1 });
      expect(s.failedGroups.filter((g) => g.stream === 'stock-counts')).toEqual([
        expect.objectContaining({ code: 'BAD_RECORD', count: 1, examples: [jobIdFor(stockCountKind, stillBad)] }),
      ]);
    });

    it('says the same in status for a person: the one failure now, and the other as history', async () => {
      const r = await runCli(['status'], env);
      expect(r.stdout).toMatch(/stock-counts\s+0\s+0\s+0\s+1\s+1\s/);
      expect(r.stdout).toMatch(/stock-counts\s+BAD_RECORD\s+1\s/);
      expect(r.stdout).toContain('History, not failures now: 1 job failed before a newer version of its record synced (stock-counts 1)');
    });

    it('is on the dashboard as in status: its JSON, its overview and its charts’ failed now', async () => {
      const [mine, theirs] = [await status(), await dashboardStatus()];
      expect(stream(theirs, 'stock-counts')).toEqual(stream(mine, 'stock-counts'));
      expect(theirs.failedGroups).toEqual(mine.failedGroups);
      const overview = (await raw(`${t.base}/`)).body;
      expect(overview).not.toContain(`<a href="/jobs/${jobIdFor(stockCountKind, v1)}">`);
      expect(overview).toContain(`<a href="/jobs/${jobIdFor(stockCountKind, stillBad)}">`);
      expect(overview).toContain('History, not failures now: 1 job failed before a newer version of its record synced (stock-counts 1)');
      const f = await flow();
      // The chart counts both failures as they happened; its header's "failed now" is status's.
      expect(failuresCharted(f, 'stock-counts')).toBe(2);
      expect(f.streams['stock-counts']!.failedNow).toBe(1);
    });

    it('counts the same in status over many accounts and on the all-accounts page: the same failures now, needs, state', async () => {
      // What `status` over many accounts reads and sums up (src/ops/accounts-status.ts), and the dashboard's page of them.
      const account = { name: 'default', config: { redis: { prefix: world.prefix }, upstream: undefined, alerts: { lagSeconds: 600 } } };
      const summary = await readAccountsStatus(world.redis, [account as unknown as AccountConfig], programKinds, { page: 1, limit: 20 });
      const board = await startTestDashboard({ accounts: { current: () => [{ name: 'default', prefix: world.prefix }] } });
      try {
        const page = JSON.parse((await raw(`${board.base}/api/accounts`)).body) as AccountsView;
        const [listed, row] = [summary.needing[0]!, page.accounts[0]!];
        expect(row.needs).toEqual(listed.needs);
        expect(row.needs[0]).toEqual({ kind: 'failed', streams: ['orders', 'stock-counts'] });
        expect(page.counts).toEqual(summary.counts.by);
        expect(page.counts.failed).toBe(1);
        // Failed now per stream: the page, the summary and `status --json` of the account say the same.
        const whole = await status();
        for (const name of ['orders', 'stock-counts']) {
          const failed = stream(whole, name).counts.failed;
          expect(row.streams.find((x) => x.stream === name)).toMatchObject({ failed, completed: stream(whole, name).counts.completed });
          expect(listed.glance.streams.find((x) => x.stream === name)!.failed).toBe(failed);
        }
        expect(row.streams.find((x) => x.stream === 'stock-counts')).toMatchObject({ failed: 1, completed: 1 });
        // BullMQ's failed set holds both; only the one not superseded is failed now.
        expect(await world.redis.zcard(`${world.prefix}:stock-counts:failed`)).toBe(2);
      } finally {
        await board.close();
      }
    });

    it('lists it in find as a superseded version, and suggests no retry of it', async () => {
      const r = await runCli(['find', 'TR-CNT-1', '--json'], env);
      const found = JSON.parse(r.stdout) as { jobs: Array<{ id: string; state: string; standing: string; supersededBy: string | null }> };
      expect(found.jobs.map((j) => [j.id, j.state, j.standing, j.supersededBy])).toEqual([
        [jobIdFor(stockCountKind, v1), 'failed', 'superseded', jobIdFor(stockCountKind, v2)],
        [jobIdFor(stockCountKind, v2), 'completed', 'in force', null],
      ]);
      const text = (await runCli(['find', 'TR-CNT-1'], env)).stdout;
      expect(text).toMatch(/v1 \(superseded\)\s+failed/);
      expect(text).not.toContain('jobs retry');
      const page = (await raw(`${t.base}/find?key=TR-CNT-1`)).body;
      expect(page).toContain('v1 (superseded)');
      // Its own story says so, with no retry offered, in the CLI and on its page.
      const show = (await runCli(['jobs', 'show', jobIdFor(stockCountKind, v1)], env)).stdout;
      expect(show).toContain(`Superseded: ${jobIdFor(stockCountKind, v2)}, a newer version of this record, synced since`);
      expect(show).not.toContain('jobs retry');
      const jobPage = (await raw(`${t.base}/jobs/${jobIdFor(stockCountKind, v1)}`)).body;
      expect(jobPage).toContain('id="superseded"');
      expect(jobPage).not.toContain('Retry this job');
    });

    it('is not brought back by jobs retry --all-failed, nor by its id', async () => {
      const all = await runCli(['jobs', 'retry', '--all-failed', '--stream', 'stock-counts', '--json'], env);
      const out = JSON.parse(all.stdout) as { retried: Array<{ id: string }>; superseded: Array<{ id: string; by: string }> };
      expect(out.superseded).toEqual([{ id: jobIdFor(stockCountKind, v1), by: jobIdFor(stockCountKind, v2) }]);
      expect(out.retried.map((j) => j.id)).toEqual([jobIdFor(stockCountKind, stillBad)]);
      const one = await runCli(['jobs', 'retry', jobIdFor(stockCountKind, v1)], env);
      expect(one.code).toBe(1);
      expect(one.stdout).toContain(`superseded by ${jobIdFor(stockCountKind, v2)}`);
      await world.idle();
      expect(await world.queues.get('stock-counts').getJobState(jobIdFor(stockCountKind, v1))).toBe('failed');
    });
  });

  describe('when an order failed, was retried and synced', () => {
    it('is no failure in status --json, the dashboard or its chart header, while the chart keeps the failure it was', async () => {
      const s = await status();
      const orders = stream(s, 'orders');
      expect(orders.counts).toMatchObject({ failed: 2, completed: 1 });
      expect(s.failedGroups.flatMap((g) => g.examples)).not.toContain(jobIdFor(orderKind, retried));
      const f = await flow();
      expect(failuresCharted(f, 'orders')).toBe(3);
      expect(f.streams.orders!.failedNow).toBe(orders.counts.failed);
      expect(stream(await dashboardStatus(), 'orders').counts.failed).toBe(2);
    });
  });

  describe('when two orders are refused for one cause', () => {
    it('groups them as one in status --json and on the dashboard', async () => {
      const groups = (await status()).failedGroups.filter((g) => g.stream === 'orders');
      expect(groups).toEqual([
        expect.objectContaining({
          code: 'SERVICE_REFUSED',
          reason: expect.stringContaining('Orders cannot be completed today') as string,
          count: 2,
          examples: expect.arrayContaining(refused.map((r) => jobIdFor(orderKind, r))) as string[],
        }),
      ]);
      expect(groups[0]!.reason).not.toMatch(/TR-REFUSED/);
      expect((await dashboardStatus()).failedGroups.filter((g) => g.stream === 'orders')).toEqual(groups);
      const overview = (await raw(`${t.base}/`)).body;
      expect(overview.match(/data-group="orders:SERVICE_REFUSED"/g)).toHaveLength(1);
    });
  });
});

describe('a count imported, failed, then imported again corrected', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({}, 'status-truth-import');
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('ends the failure: the second import says nothing remains failed, and status counts the first as history', async () => {
    const bad = countRecord('TRI-1', 'Main Warehouse / A-03', '2026-12-01', [['NO-SUCH-MUG', 2]]);
    const fixed = countRecord('TRI-1', 'Main Warehouse / A-03', '2026-12-01', [['MUG-BLUE', 2]]);
    const first = await runCli(['import', 'stock-counts', '-', '--process'], stack.env, { input: `${JSON.stringify(bad)}\n` });
    expect(first.code).toBe(1);
    const second = await runCli(['import', 'stock-counts', '-', '--process'], stack.env, { input: `${JSON.stringify(fixed)}\n` });
    expect(second.code, second.stdout).toBe(0);
    expect(second.stdout).not.toContain('other failed job');
    const s = JSON.parse((await runCli(['status', '--json'], stack.env)).stdout) as StatusJson;
    expect(stream(s, 'stock-counts')).toMatchObject({ counts: { failed: 0, completed: 1 }, superseded: 1 });
    expect(s.failedGroups).toEqual([]);
  });
});
