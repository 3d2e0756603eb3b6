import { describe, expect, it } from 'vitest';
import { demo, orderBody, useSandbox } from './helpers.js';

/** Injected faults and latency (issue 3 "Budgets and faults"), seen by a plain HTTP client. */
let draws = [0.25, 0.75];
let i = 0;
const t = useSandbox({ random: () => draws[i++ % draws.length] as number });

describe('faults', () => {
  it('status-503 answers 503 before doing anything', async () => {
    t.sb.admin.setFaults([{ kind: 'status-503', method: 'POST', path: '/api/order$' }]);
    const r = await t.api.post('order', orderBody('T-1'));
    expect(r.status).toBe(503);
    expect(r.body.msg).toEqual(expect.any(String));
    expect((await t.api.get('order/T-1')).status).toBe(404);
    expect(t.sb.admin.counters().faults).toEqual({ 'status-503': 1 });
  });

  it('reset drops the connection before doing anything', async () => {
    t.sb.admin.setFaults([{ kind: 'reset', method: 'POST' }]);
    await expect(t.api.post('order', orderBody('T-2'))).rejects.toThrow();
    t.sb.admin.setFaults([]);
    expect((await t.api.get('order/T-2')).status).toBe(404);
  });

  it('apply-then-drop applies the write and drops the connection without answering', async () => {
    t.sb.admin.setFaults([{ kind: 'apply-then-drop', path: '/api/order$' }]);
    await expect(t.api.post('order', orderBody('T-3'))).rejects.toThrow();
    t.sb.admin.setFaults([]);
    expect((await t.api.get('order/T-3')).body.statusId).toBe('ORDER_CREATED');
    expect(t.sb.admin.counters().creates.order).toBe(1);
  });

  it('hang never answers and does nothing', async () => {
    t.sb.admin.setFaults([{ kind: 'hang', method: 'POST' }]);
    await expect(t.api.post('order', orderBody('T-4'), { signal: AbortSignal.timeout(300) })).rejects.toThrow();
    t.sb.admin.setFaults([]);
    expect((await t.api.get('order/T-4')).status).toBe(404);
  });

  it('hang with hangMs answers 504 after that time, having done nothing', async () => {
    t.sb.admin.setFaults([{ kind: 'hang', hangMs: 150 }]);
    const started = Date.now();
    const r = await t.api.post('order', orderBody('T-5'));
    expect(r.status).toBe(504);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    t.sb.admin.setFaults([]);
    expect((await t.api.get('order/T-5')).status).toBe(404);
  });

  it('fires by rate, only on the method and path of the rule, at most `times` times', async () => {
    i = 0;
    draws = [0.25, 0.75];
    t.sb.admin.setFaults([{ kind: 'status-503', rate: 0.5, method: 'GET', path: '/api/product/' }]);
    const statuses = [];
    for (let n = 0; n < 4; n++) statuses.push((await t.api.get(demo.sku1)).status);
    expect(statuses).toEqual([503, 200, 503, 200]);
    expect((await t.api.get('facility')).status).toBe(200);
    expect((await t.api.post(demo.sku1, { productId: 'SKU-0001', productUrl: demo.sku1 })).status).toBe(200);
    t.sb.admin.setFaults([{ kind: 'status-503', times: 2 }]);
    const more = [];
    for (let n = 0; n < 4; n++) more.push((await t.api.get('facility')).status);
    expect(more).toEqual([503, 503, 200, 200]);
    expect(t.sb.admin.faults()[0]).toMatchObject({ kind: 'status-503', times: 2, fired: 2 });
  });

  it('status-401 refuses every request as a revoked key would, doing nothing', async () => {
    t.sb.admin.setFaults([{ kind: 'status-401' }]);
    const r = await t.api.post('order', orderBody('T-6'));
    expect(r.status).toBe(401);
    expect((await t.api.get('facility')).status).toBe(401);
    t.sb.admin.setFaults([]);
    expect((await t.api.get('order/T-6')).status).toBe(404);
    expect(t.sb.admin.counters().faults).toEqual({ 'status-401': 2 });
  });

  it('status-403 refuses only the requests of its path, before the budget', async () => {
    t.sb.admin.setBudgets({ post: { limit: 1, windowMs: 3_600_000 } });
    t.sb.admin.setFaults([{ kind: 'status-403', method: 'POST', path: '/api/shipment/[^/]+$' }]);
    expect((await t.api.post('shipment/S-1', { statusId: 'SHIPMENT_SHIPPED' })).status).toBe(403);
    // The refusal spent no budget: the one POST of the window is still there.
    expect((await t.api.post('order', orderBody('T-7'))).status).toBe(200);
    expect((await t.api.post('order', orderBody('T-8'))).status).toBe(429);
    expect((await t.api.get('order/T-7')).status).toBe(200);
    t.sb.admin.setBudgets({ post: null });
    expect(t.sb.admin.faults()[0]).toMatchObject({ kind: 'status-403', fired: 1 });
  });

  it('rejects a rule with an invalid path regex or kind', () => {
    expect(() => t.sb.admin.setFaults([{ kind: 'reset', path: '([' }])).toThrow(/path/);
    expect(() => t.sb.admin.setFaults([{ kind: 'explode' as 'reset' }])).toThrow(/kind/);
  });

  it('is cleared by reset', async () => {
    t.sb.admin.setFaults([{ kind: 'status-503' }]);
    t.sb.admin.reset();
    expect((await t.api.get('facility')).status).toBe(200);
  });
});

describe('latency', () => {
  it('delays every API answer by ms plus up to jitterMs', async () => {
    draws = [0.5];
    t.sb.admin.setLatency({ ms: 300, jitterMs: 100 });
    const started = Date.now();
    expect((await t.api.get('facility')).status).toBe(200);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(345);
    expect(took).toBeLessThan(3000);
    t.sb.admin.setLatency(null);
    const quick = Date.now();
    await t.api.get('facility');
    expect(Date.now() - quick).toBeLessThan(300);
  });
});
