import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { orderRecord, orderState } from '../helpers/order-records.js';
import { runCli } from './run-cli.js';
import { startStack, type Stack } from './stack.js';

/** Issue 20: `sync --once` does not wait forever for a stream its breaker paused; it says so, and resume + sync finish. */
const ids = Array.from({ length: 8 }, (_, i) => `SB-${i}`);
let stack: Stack;
beforeEach(async () => {
  stack = await startStack({ orders: ids.map((id) => orderRecord(id)) }, 'sync-breaker');
});
afterEach(async () => {
  await stack.close();
});

describe('sync --once, when every ship answers 403', () => {
  it('stops at the pause with exit 1 and the command to run, fails no order, and resume then sync finishes each once', async () => {
    const env = { ...stack.env, BREAKER_THRESHOLD: '3', WORKER_CONCURRENCY: '2' };
    stack.sandbox.admin.setFaults([{ kind: 'status-403', method: 'POST', path: '/api/shipment/[^/]+$' }]);
    const first = await runCli(['sync', '--once', '--stream', 'orders', '--json'], env, { timeoutMs: 90_000 });
    expect(first.code, first.stderr).toBe(1);
    const summary = JSON.parse(first.stdout) as {
      ok: boolean;
      perStream: { orders: { failed: unknown[]; paused?: { reason: string; waiting: number } } };
    };
    expect(summary.ok).toBe(false);
    expect(summary.perStream.orders.failed).toEqual([]);
    expect(summary.perStream.orders.paused!.reason).toMatch(/^\[FORBIDDEN\] POST \/[^ ]+\/api\/shipment\/\S+ answered 403/);
    expect(summary.perStream.orders.paused!.waiting).toBe(ids.length);
    const human = await runCli(['sync', '--once', '--stream', 'orders'], env, { timeoutMs: 60_000 });
    expect(human.code).toBe(1);
    expect(human.stdout).toContain('orders: PAUSED since');
    expect(human.stdout).toContain('Fix the cause, then: inventory-sync resume --stream orders');

    stack.sandbox.admin.setFaults([]);
    const resumed = await runCli(['resume', '--json'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const r = JSON.parse(resumed.stdout) as { resumed: Array<{ stream: string; wasPaused: boolean }> };
    expect(r.resumed.filter((x) => x.wasPaused).map((x) => x.stream)).toEqual(['orders']);
    const second = await runCli(['sync', '--once', '--stream', 'orders'], env, { timeoutMs: 90_000 });
    expect(second.code, second.stdout + second.stderr).toBe(0);
    for (const id of ids) {
      const { orders, shipments } = orderState(stack.sandbox.admin.state(), id);
      expect([orders.length, shipments.length, orders[0]!.statusId, shipments[0]!.statusId]).toEqual([
        1,
        1,
        'ORDER_COMPLETED',
        'SHIPMENT_SHIPPED',
      ]);
    }
  }, 240_000);
});

describe('sync --once, when every ship answers the same 400', () => {
  it("pauses at the threshold with the service's message, and resume retries the orders it failed: each synced once", async () => {
    const env = { ...stack.env, BREAKER_THRESHOLD: '3', WORKER_CONCURRENCY: '1' };
    stack.sandbox.admin.setFaults([
      { kind: 'status-400', method: 'POST', path: '/api/shipment/[^/]+$', msg: 'The API cannot pack or ship' },
    ]);
    const first = await runCli(['sync', '--once', '--stream', 'orders', '--json'], env, { timeoutMs: 90_000 });
    expect(first.code, first.stderr).toBe(1);
    const summary = JSON.parse(first.stdout) as { perStream: { orders: { failed: Array<{ id: string }>; paused?: { reason: string } } } };
    expect(summary.perStream.orders.paused!.reason).toContain('The API cannot pack or ship');
    // The two before the third failed as refusals of their own records would; no other order was tried.
    expect(summary.perStream.orders.failed).toHaveLength(2);
    const ships = stack.sandbox.admin.requests().filter((q) => q.status === 400);
    expect(ships).toHaveLength(3);

    stack.sandbox.admin.setFaults([]);
    const resumed = await runCli(['resume', '--stream', 'orders'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('2 of them failed by the same refusal before the pause and retried');
    const second = await runCli(['sync', '--once', '--stream', 'orders'], env, { timeoutMs: 90_000 });
    expect(second.code, second.stdout + second.stderr).toBe(0);
    for (const id of ids) {
      const { orders, shipments } = orderState(stack.sandbox.admin.state(), id);
      expect([orders.length, shipments.length, orders[0]!.statusId, shipments[0]!.statusId]).toEqual([
        1,
        1,
        'ORDER_COMPLETED',
        'SHIPMENT_SHIPPED',
      ]);
    }
  }, 240_000);
});
