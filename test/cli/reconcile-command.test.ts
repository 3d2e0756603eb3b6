import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLastReport } from '../../src/ops/reconcile.js';
import type { SandboxData } from '../../src/sandbox/sandbox-data-schema.js';
import { orderRecord } from '../helpers/order-records.js';
import { redisKeys } from '../../src/redis/connection.js';
import { cliInProcess } from './cli-in-process.js';
import { runCli } from './run-cli.js';
import { startStack, type Stack } from './stack.js';

describe('reconcile command', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ orders: [orderRecord('RK-1'), orderRecord('RK-2')] }, 'reconcile-cli');
    const sync = await runCli(['sync', '--once'], stack.env, { timeoutMs: 90_000 });
    expect(sync.code, sync.stdout + sync.stderr).toBe(0);
  }, 120_000);
  afterAll(() => stack?.close());

  it('exits 0 and says so when nothing drifted, and keeps the report for the dashboard', async () => {
    const r = await runCli(['reconcile'], stack.env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "Compared 2 orders, 2 orders' shipments, 0 counted (location, product) pairs and 0 BOMs with the service (orders, stock-counts, boms).",
    );
    expect(r.stdout).toMatch(/Cost: 2 collection GETs, 0 entity GETs/);
    expect(r.stdout).toContain('No drift: the service matches what was synced.');
    expect((await readLastReport(stack.redis, stack.prefix))?.ok).toBe(true);
  });

  it('exits 1 with a table naming the record and the field when something drifted; --json for scripts', async () => {
    const state = stack.sandbox.admin.state();
    state.orders.find((o) => o.orderId === 'RK-2')!.statusId = 'ORDER_CANCELLED';
    stack.sandbox.admin.reset(JSON.parse(JSON.stringify(state)) as SandboxData);

    const r = await runCli(['reconcile', '--stream', 'orders'], stack.env);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('1 drift:');
    expect(r.stdout).toMatch(/orders\s+RK-2\s+order-not-completed\s+statusId\s+ORDER_CANCELLED\s+ORDER_COMPLETED/);

    const json = await runCli(['reconcile', '--stream', 'orders', '--json'], stack.env);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({
      ok: false,
      streams: ['orders'],
      drifts: [{ stream: 'orders', key: 'RK-2', kind: 'order-not-completed', field: 'statusId' }],
    });
    expect((await readLastReport(stack.redis, stack.prefix))?.drifts).toHaveLength(1);
  });

  describe('when the collection budget makes it wait', () => {
    /** A 429 of the account's collection budget, held for every process for `ms`. */
    const holdCollections = (ms: number) => stack.redis.set(redisKeys(stack.prefix).budgetHold('collection'), '1', 'PX', ms);

    it('says on stderr which budget it waits on and for about how long, then its progress; stdout stays the report', async () => {
      await holdCollections(6000);
      const r = await cliInProcess(['reconcile', '--stream', 'orders', '--json'], stack.env);
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stdout)).toMatchObject({ streams: ['orders'] });
      const lines = r.stderr.split('\n').filter((l) => l && !l.startsWith('{'));
      expect(lines[0]).toMatch(
        /^reconcile waits for the collection budget \(INVENTORY_COLLECTION_PER_HOUR=3000 an hour, shared by every process of the account\): the next collection read in about [3-6] s, then one every 1 s; about [4-7] s for the 2 collections the last reconcile read \(inventory-sync status shows the budget's use\)$/,
      );
      expect(lines).toContainEqual(
        expect.stringMatching(
          /^reconcile: collection reads: 0\/2 waiting [3-6] s for the collection budget \(INVENTORY_COLLECTION_PER_HOUR=3000/,
        ),
      );
      expect(lines.at(-1)).toBe('reconcile: collection reads: 2/2');
    });

    it('draws a bar on a terminal', async () => {
      await holdCollections(5000);
      const r = await cliInProcess(['reconcile', '--stream', 'orders', '--repair', '--dry-run'], stack.env, { tty: true });
      expect(r.stderr).toContain('reconcile --repair --dry-run waits for the collection budget');
      expect(r.stderr).toMatch(/reconcile --repair --dry-run: collection reads \[[█░]+\] 0\/2 waiting [2-5] s for the collection budget/);
    });

    it('says nothing of the budget when it does not wait', async () => {
      const r = await cliInProcess(['reconcile', '--stream', 'orders'], stack.env);
      expect(r.stderr).not.toContain('collection budget');
      expect(r.stderr).not.toContain('collection reads');
    });
  });

  it('refuses an unknown stream with exit 2', async () => {
    const r = await runCli(['reconcile', '--stream', 'invoices'], stack.env);
    expect(r.code).toBe(2);
  });
});
