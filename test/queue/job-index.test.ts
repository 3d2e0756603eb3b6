import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findJobIds, indexJobIds, jobIndexKey, jobIndexTtlSeconds } from '../../src/queue/job-index.js';
import { jobIdFor } from '../../src/queue/job-id.js';
import { connect, deletePrefix, uniquePrefix } from '../helpers/redis.js';
import { STREAMS } from '../../jobs/kinds.js';
import { bomKind } from '../../jobs/boms/bom-kind.js';
import { orderKind } from '../../jobs/orders/order-kind.js';
import { stockCountKind } from '../../jobs/stock/stock-count-kind.js';

const order = (orderId: string, quantity = 1) => ({
  orderId,
  origin: 'Main Warehouse',
  lines: [{ productId: 'MUG-BLUE', quantity, unitPrice: 1, location: 'A-01' }],
});
const DAY = 86_400_000;

describe('the key index of find', () => {
  let redis: Redis;
  let prefix: string;
  beforeAll(() => {
    redis = connect();
    prefix = uniquePrefix('jobindex');
  });
  afterAll(async () => {
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  describe('when keys share a beginning', () => {
    it('answers the ids of exactly the key asked, across days and versions', async () => {
      const now = Date.now();
      const ids = {
        v1: jobIdFor(orderKind, order('WEB-1')),
        v2: jobIdFor(orderKind, order('WEB-1', 2)),
        longer: jobIdFor(orderKind, order('WEB-10')),
        dashed: jobIdFor(orderKind, order('WEB-1-B')),
        count: jobIdFor(stockCountKind, { countId: 'WEB-1', location: 'A-01', countDate: '2026-11-20', items: [] }),
      };
      await indexJobIds(redis, prefix, [ids.v1, ids.longer, ids.dashed], now - 3 * DAY);
      await indexJobIds(redis, prefix, [ids.v2, ids.count], now);
      expect((await findJobIds(redis, prefix, 'WEB-1', STREAMS, now)).sort()).toEqual([ids.v1, ids.v2, ids.count].sort());
      expect(await findJobIds(redis, prefix, 'WEB-1-B', STREAMS, now)).toEqual([ids.dashed]);
      expect(await findJobIds(redis, prefix, 'WEB-2', STREAMS, now)).toEqual([]);
    });
  });

  describe('when a day is written', () => {
    it('lives as long as completed jobs are kept, and a bit more', async () => {
      const now = Date.now();
      await indexJobIds(redis, prefix, ['orders-X-000000000000'], now);
      const ttl = await redis.ttl(jobIndexKey(prefix, new Date(now).toISOString().slice(0, 10)));
      expect(ttl).toBeGreaterThan(7 * 86_400);
      expect(ttl).toBeLessThanOrEqual(jobIndexTtlSeconds());
    });
  });

  describe('when a failed job outlived its day in the index', () => {
    it('is found in the failed set', async () => {
      const id = jobIdFor(bomKind, { productId: 'KIT*1', components: [] });
      await redis.zadd(`${prefix}:boms:failed`, Date.now() - 30 * DAY, id);
      expect(await findJobIds(redis, prefix, 'KIT*1', STREAMS)).toEqual([id]);
      expect(await findJobIds(redis, prefix, 'KIT', STREAMS)).toEqual([]);
    });
  });
});
