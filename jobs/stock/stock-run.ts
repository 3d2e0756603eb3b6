import type { RedisConnection as Redis, RedisKeys } from '../../src/redis.js';
import { stockKeys } from './stock-keys.js';

/**
 * Marks the start of a stock sync run: the next count job reads on-hand stock afresh, and every count of the
 * run shares that read. Call before pulling the stock-counts stream (the scheduled run, `sync --once`).
 * Safe at any time: plans in progress keep the snapshot they were computed from.
 */
export async function beginStockSyncRun(redis: Redis, keys: RedisKeys): Promise<void> {
  await redis.del(stockKeys(keys).snapshotMeta);
}

/** Control-queue hooks of the stock sync: each scheduled stock-count pull begins a run (see startControl). */
export function stockSyncHooks(redis: Redis, keys: RedisKeys): { beforePull(run: { stream: string }): Promise<void> } {
  return {
    async beforePull(run) {
      if (run.stream === 'stock-counts') await beginStockSyncRun(redis, keys);
    },
  };
}
