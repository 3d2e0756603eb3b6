import type { RedisKeys } from '../../src/redis/connection.js';

/** Redis keys of the order sync, under the program's prefix (docs/orders.md). */
export function orderKeys(keys: RedisKeys) {
  return {
    /** Progress of one order, keyed on orderId, as a hash. */
    progress: (orderId: string) => `${keys.prefix}:order:${orderId}`,
  };
}
