import { describe, expect, it } from 'vitest';
import { orderBody, useSandbox, varianceBody } from './helpers.js';

/** docs/service.md "Budgets" (configurable, off by default). */
let now = Date.UTC(2026, 10, 21, 12, 0, 0);
const t = useSandbox({ clock: () => now });

describe('limits (spec section 8)', () => {
  it('keeps orderId unique across the order collection', async () => {
    expect((await t.api.post('order', orderBody('L-1'))).status).toBe(200);
    expect((await t.api.post('order', orderBody('L-1'))).status).toBe(400);
    expect((await t.api.rows('order')).filter((r) => r.orderId === 'L-1')).toHaveLength(1);
  });

  describe('physicalInventoryDate at 19:00', () => {
    for (const date of ['2026-11-21T19:00:00.000', '2026-11-21T19:00:00']) {
      it(`accepts ${date}`, async () => {
        const v = await t.api.ok('inventoryvariance', varianceBody({ physicalInventoryDate: date }));
        expect(v.physicalInventoryDate).toBe('2026-11-21T19:00:00.000');
      });
    }
    for (const date of [
      '2026-11-21T18:59:59.999',
      '2026-11-21T19:00:01.000',
      '2026-11-21T19:00:00.001',
      '2026-11-21T07:00:00.000',
      '2026-11-21',
      '2026-02-30T19:00:00.000',
      '21/11/2026 19:00',
    ]) {
      it(`refuses ${date}`, async () => {
        const r = await t.api.post('inventoryvariance', varianceBody({ physicalInventoryDate: date }));
        expect(r.status).toBe(400);
        expect(r.body.msg).toContain('physicalInventoryDate');
      });
    }
  });

  describe('request budgets', () => {
    it('are off by default', async () => {
      const answers = await Promise.all(Array.from({ length: 150 }, () => t.api.get('facility')));
      expect(answers.every((a) => a.status === 200)).toBe(true);
    });

    it('answer 429 over the POST budget with X-RateLimit-Limit and X-RateLimit-Reset in epoch seconds, without applying the write', async () => {
      now = Date.UTC(2026, 10, 21, 12, 0, 10);
      t.sb.admin.setBudgets({ post: { limit: 2, windowMs: 60_000 } });
      expect((await t.api.post('order', orderBody('L-10'))).status).toBe(200);
      expect((await t.api.post('order', orderBody('L-11'))).status).toBe(200);
      const r = await t.api.post('order', orderBody('L-12'));
      expect(r.status).toBe(429);
      expect(r.headers['x-ratelimit-limit']).toBe('2');
      expect(r.headers['x-ratelimit-reset']).toBe(String(Date.UTC(2026, 10, 21, 12, 1, 0) / 1000));
      expect(r.headers['retry-after']).toBeUndefined();
      expect((await t.api.get('order/L-12')).status).toBe(404);
      expect(t.sb.admin.counters().rateLimited).toBe(1);
      now = Date.UTC(2026, 10, 21, 12, 1, 0);
      expect((await t.api.post('order', orderBody('L-12'))).status).toBe(200);
    });

    it('can report the reset in epoch milliseconds', async () => {
      now = Date.UTC(2026, 10, 21, 12, 0, 0);
      t.sb.admin.setBudgets({ get: { limit: 1, windowMs: 60_000 }, resetUnit: 'ms' });
      expect((await t.api.get('order/none')).status).toBe(404);
      const r = await t.api.get('order/none');
      expect(r.status).toBe(429);
      expect(r.headers['x-ratelimit-reset']).toBe(String(Date.UTC(2026, 10, 21, 12, 1, 0)));
    });

    it('count a collection GET in both the GET and the collection budget', async () => {
      now = Date.UTC(2026, 10, 21, 13, 0, 0);
      t.sb.admin.setBudgets({ get: { limit: 3, windowMs: 60_000 }, collection: { limit: 1, windowMs: 3_600_000 } });
      expect((await t.api.get('product')).status).toBe(200);
      const second = await t.api.get('product');
      expect(second.status).toBe(429);
      expect(second.headers['x-ratelimit-limit']).toBe('1');
      expect((await t.api.get('product/10003')).status).toBe(200);
      expect((await t.api.get('product/10003')).status).toBe(200);
      expect((await t.api.get('product/10003')).status).toBe(429);
      expect(t.sb.admin.counters().byClass).toEqual({ get: 5, post: 0, collection: 2 });
    });

    it('spend one total budget with every request, GET, POST and collection, beside the per-class ones', async () => {
      now = Date.UTC(2026, 10, 21, 15, 0, 0);
      const roomy = { limit: 100, windowMs: 60_000 };
      const set = await t.api.post('/_admin/budgets', {
        post: roomy,
        get: roomy,
        collection: roomy,
        total: { limit: 4, windowMs: 60_000 },
      });
      expect(set.body.total).toEqual({ limit: 4, windowMs: 60_000 });
      expect((await t.api.post('order', orderBody('L-30'))).status).toBe(200);
      expect((await t.api.get('order/L-30')).status).toBe(200);
      expect((await t.api.get('product')).status).toBe(200);
      expect((await t.api.post('order', orderBody('L-31'))).status).toBe(200);
      for (const r of [await t.api.get('order/L-30'), await t.api.post('order', orderBody('L-32')), await t.api.get('facility')]) {
        expect(r.status).toBe(429);
        expect(r.headers['x-ratelimit-limit']).toBe('4');
        expect(r.headers['x-ratelimit-reset']).toBe(String(Date.UTC(2026, 10, 21, 15, 1, 0) / 1000));
        expect(r.body.msg).toContain('total budget of 4');
      }
      expect(t.sb.admin.state().orders.map((o) => o.orderId)).toEqual(['L-30', 'L-31']);
      expect(t.sb.admin.counters()).toMatchObject({ rateLimited: 3, byClass: { get: 4, post: 3, collection: 2 } });
      now = Date.UTC(2026, 10, 21, 15, 1, 0);
      expect((await t.api.post('order', orderBody('L-32'))).status).toBe(200);
    });

    it('tell what is left of the tightest budget on every answer once a budget is set, and nothing without one', async () => {
      now = Date.UTC(2026, 10, 21, 16, 0, 0);
      t.sb.admin.setBudgets({});
      const free = await t.api.get('facility');
      expect(free.status).toBe(200);
      expect(Object.keys(free.headers).filter((h) => h.startsWith('x-ratelimit-'))).toEqual([]);
      t.sb.admin.setBudgets({ get: { limit: 10, windowMs: 60_000 }, collection: { limit: 3, windowMs: 3_600_000 } });
      const first = await t.api.get('facility');
      expect(first.status).toBe(200);
      expect(first.headers).toMatchObject({
        'x-ratelimit-limit': '3',
        'x-ratelimit-remaining': '2',
        'x-ratelimit-reset': String(Date.UTC(2026, 10, 21, 17, 0, 0) / 1000),
      });
      // An entity GET spends the GET budget only; a 404 tells it too.
      const missing = await t.api.get('order/none');
      expect(missing.status).toBe(404);
      expect(missing.headers).toMatchObject({
        'x-ratelimit-limit': '10',
        'x-ratelimit-remaining': '8',
        'x-ratelimit-reset': String(Date.UTC(2026, 10, 21, 16, 1, 0) / 1000),
      });
    });

    it('tell nothing but on a 429 when the headers come on 429s only (rateHeaders on-429)', async () => {
      now = Date.UTC(2026, 10, 21, 18, 0, 0);
      t.sb.admin.setBudgets({ total: { limit: 2, windowMs: 60_000 }, rateHeaders: 'on-429' });
      for (const r of [await t.api.get('facility'), await t.api.get('order/none')])
        expect(Object.keys(r.headers).filter((h) => h.startsWith('x-ratelimit-'))).toEqual([]);
      const over = await t.api.get('product/10003');
      expect(over.status).toBe(429);
      expect(over.headers).toMatchObject({
        'x-ratelimit-limit': '2',
        'x-ratelimit-reset': String(Date.UTC(2026, 10, 21, 18, 1, 0) / 1000),
      });
      expect(over.headers['x-ratelimit-remaining']).toBeUndefined();
      expect(t.sb.admin.budgets().rateHeaders).toBe('on-429');
    });

    it('keep GET and POST budgets apart', async () => {
      now = Date.UTC(2026, 10, 21, 14, 0, 0);
      t.sb.admin.setBudgets({ post: { limit: 1, windowMs: 60_000 } });
      expect((await t.api.post('order', orderBody('L-20'))).status).toBe(200);
      expect((await t.api.post('order', orderBody('L-21'))).status).toBe(429);
      expect((await t.api.get('order/L-20')).status).toBe(200);
    });
  });
});
