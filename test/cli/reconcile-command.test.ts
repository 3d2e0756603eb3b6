import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLastReport } from '../../src/ops/reconcile.js';
import type { SandboxData } from '../../src/sandbox/sandbox-data-schema.js';
import { orderRecord } from '../helpers/order-records.js';
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

  it('refuses an unknown stream with exit 2', async () => {
    const r = await runCli(['reconcile', '--stream', 'invoices'], stack.env);
    expect(r.code).toBe(2);
  });
});
