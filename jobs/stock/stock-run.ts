import type { RedisConnection as Redis, RedisKeys } from '../../src/redis/connection.js';
import { stockKeys } from './stock-keys.js';

/**
 * Marks the start of a stock sync run: the next count job reads on-hand stock afresh, and every count of the
 * run shares that read. Runs before every pull of the stock-counts stream (its `beforePull`: the scheduled run, `sync --once`).
 * Safe at any time: plans in progress keep the snapshot they were computed from.
 */
export async function beginStockSyncRun(redis: Redis, keys: RedisKeys): Promise<void> {
  await redis.del(stockKeys(keys).snapshotMeta);
}
