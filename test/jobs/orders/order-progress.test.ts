import { afterAll, describe, expect, it } from 'vitest';
import { orderKeys } from '../../../jobs/orders/order-keys.js';
import { unitsHashOf, type OrderPlan } from '../../../jobs/orders/order-plan.js';
import { parseProgress, ProgressStore } from '../../../jobs/orders/order-progress.js';
import { redisKeys } from '../../../src/redis/connection.js';
import { saveReleasedLife } from '../../kit/released-order-progress.js';
import { connect, deletePrefix, uniquePrefix } from '../../helpers/redis.js';

const UNITS = { '/demo/api/product/MUG-BLUE@/demo/api/facility/10001': 2, '/demo/api/product/10003@/demo/api/facility/10002': 1 };
/** Just what parsing reads of a plan: its parts' names and units. */
const plan = { parts: [{ id: 'P-1-F1', units: UNITS, unitsHash: unitsHashOf(UNITS) }] } as unknown as OrderPlan;

describe("an order's progress hash", () => {
  const redis = connect();
  const prefix = uniquePrefix('order-progress');
  const key = (id: string) => orderKeys(redisKeys(prefix)).progress(id);
  afterAll(async () => {
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  describe('when an order with two parts and a return is saved', () => {
    it('reads back what was saved, the units from the plan where its part is the same', async () => {
      const store = new ProgressStore(redis, key('P-1'), 3600);
      await store.save(
        { status: 'locked', orderUrl: '/demo/api/order/P-1', actions: { lock: '/demo/api/order/P-1/lock' }, items: 'abc' },
        true,
      );
      const parts = new Map([
        ['P-1-F1', { shipped: true, url: '/demo/api/shipment/1', units: UNITS, unitsHash: unitsHashOf(UNITS) }],
        ['P-1-F2', { shipped: false, url: '/demo/api/shipment/2', units: { x: 1 }, unitsHash: unitsHashOf({ x: 1 }) }],
      ]);
      await store.save({ parts, returns: new Map([['P-1-R1', { urls: ['/demo/api/inventoryvariance/7', ''], day: '2026-11-23' }]]) });
      const p = parseProgress(await redis.hgetall(key('P-1')), plan);
      expect(p).toMatchObject({ status: 'locked', orderUrl: '/demo/api/order/P-1', items: 'abc', actions: {} });
      expect([...p.parts]).toEqual([
        ['P-1-F1', { shipped: true, url: '/demo/api/shipment/1', unitsHash: unitsHashOf(UNITS), units: UNITS }],
        ['P-1-F2', { shipped: false, url: '/demo/api/shipment/2', unitsHash: unitsHashOf({ x: 1 }) }],
      ]);
      expect(p.returns.get('P-1-R1')).toEqual({ urls: ['/demo/api/inventoryvariance/7', ''], day: '2026-11-23' });
      expect(await redis.hget(key('P-1'), 'step')).toBe('shipment-created');
    });

    it('keeps the hash a listpack (every value within 64 bytes): about 0.4 KB an order', async () => {
      expect(await redis.call('OBJECT', 'ENCODING', key('P-1'))).toBe('listpack');
    });
  });

  describe('when the hash is in the released life form (parts and returns as JSON)', () => {
    it('reads its parts with their units, and its returns', async () => {
      await saveReleasedLife(
        redis,
        key('P-2'),
        { status: 'created', orderUrl: '/demo/api/order/P-2', pending: 'ship:P-1-F1' },
        { parts: { 'P-1-F1': { shipped: false, url: '/demo/api/shipment/9', units: UNITS } } },
      );
      await redis.hset(key('P-2'), 'return:R', JSON.stringify({ urls: ['/demo/api/inventoryvariance/8'], day: '2026-11-24' }));
      const p = parseProgress(await redis.hgetall(key('P-2')));
      expect(p).toMatchObject({ status: 'created', pending: 'ship:P-1-F1' });
      expect(p.parts.get('P-1-F1')).toEqual({ shipped: false, url: '/demo/api/shipment/9', unitsHash: unitsHashOf(UNITS), units: UNITS });
      expect(p.returns.get('R')).toEqual({ urls: ['/demo/api/inventoryvariance/8'], day: '2026-11-24' });
    });
  });
});
