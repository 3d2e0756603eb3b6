import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitAlerts } from '../../src/ops/wait-alerts.js';
import { redisKeys } from '../../src/redis/connection.js';
import { noteWait } from '../../src/queue/wait/wait-store.js';
import { connect, deletePrefix, uniquePrefix } from '../helpers/redis.js';

describe('the alert of a long wait', () => {
  let redis: Redis;
  let prefix: string;
  const hour = 3_600_000;

  beforeAll(async () => {
    redis = connect();
    prefix = uniquePrefix('wait-alerts');
    const keys = redisKeys(prefix);
    const now = Date.now();
    // Two orders have waited 5 hours for one product; a count has waited 10 minutes for a facility.
    for (const id of ['j1', 'j2'])
      await noteWait(redis, keys, 'orders', id, { refs: [{ type: 'product', name: 'MUG-ORANGE' }], since: now - 5 * hour });
    await noteWait(redis, keys, 'stock-counts', 'c1', { refs: [{ type: 'facility', name: 'North / B-07' }], since: now - 600_000 });
  });
  afterAll(async () => {
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  it('tells a wait longer than WAIT_ALERT_HOURS once, with what is waited for and since when', async () => {
    const d = { redis, prefix, head: `inventory-sync (${prefix})`, alertHours: 4 };
    const first = await waitAlerts(d, Date.now());
    expect(first.map((a) => a.alert.reason)).toEqual(['wait:orders:product:MUG-ORANGE']);
    expect(first[0]!.alert.text).toMatch(
      /^inventory-sync \(.+\): 2 records of orders wait for product MUG-ORANGE, since \d{4}-\d\d-\d\d \d\d:\d\d UTC \(5 h, longer than WAIT_ALERT_HOURS\)/,
    );
    // Told once: the next look (another process too) finds it claimed.
    expect(await waitAlerts(d, Date.now())).toEqual([]);
  });
});
