import { defaults } from './defaults.js';
import type { Env } from './schema.js';

/** The total budget as a field of Budgets, or nothing (so that logs and equality checks do not show `undefined`). */
function totalBudget(requestsPerMinute: number | undefined): { requestsPerMinute?: number } {
  return requestsPerMinute === undefined ? {} : { requestsPerMinute };
}

/** Where and how to reach the service (INVENTORY_*), when all four of its settings are given: configOf's `service`. */
export function serviceOf(e: Env) {
  return e.INVENTORY_BASE_URL && e.INVENTORY_ACCOUNT && e.INVENTORY_API_KEY && e.INVENTORY_API_SECRET
    ? {
        baseUrl: e.INVENTORY_BASE_URL,
        account: e.INVENTORY_ACCOUNT,
        apiKey: e.INVENTORY_API_KEY,
        apiSecret: e.INVENTORY_API_SECRET,
        budgets: {
          postPerMinute: e.INVENTORY_POST_PER_MINUTE,
          getPerMinute: e.INVENTORY_GET_PER_MINUTE,
          collectionPerHour: e.INVENTORY_COLLECTION_PER_HOUR,
          ...totalBudget(e.INVENTORY_REQUESTS_PER_MINUTE ?? defaults.requestsPerMinute),
          // As numbers, not the defaults' literal types: callers set their own.
          headroom: defaults.budgetHeadroom as number,
        },
        /**
         * Sharing the budgets with the account's other clients (INVENTORY_ADAPTIVE_RATE, INVENTORY_RATE_FLOOR_PERCENT,
         * INVENTORY_RATE_START_PERCENT, INVENTORY_RATE_START_RISE_PERCENT).
         */
        adaptiveRate: {
          enabled: e.INVENTORY_ADAPTIVE_RATE === 'on',
          floorPercent: e.INVENTORY_RATE_FLOOR_PERCENT,
          startPercent: e.INVENTORY_RATE_START_PERCENT,
          startRisePercent: e.INVENTORY_RATE_START_RISE_PERCENT,
        },
        entityTimeoutMs: e.INVENTORY_ENTITY_TIMEOUT_MS,
        collectionTimeoutMs: e.INVENTORY_COLLECTION_TIMEOUT_MS,
        readRetries: defaults.readRetries as number,
        maxResponseBytes: e.INVENTORY_MAX_RESPONSE_BYTES,
      }
    : undefined;
}

/** A Shopify store as the source of its stream (SHOPIFY_*; src/sources/shopify/), when set: configOf's `shopify`. */
export function shopifyOf(e: Env) {
  return e.SHOPIFY_STORE_URL && e.SHOPIFY_ACCESS_TOKEN
    ? {
        storeUrl: e.SHOPIFY_STORE_URL,
        token: e.SHOPIFY_ACCESS_TOKEN,
        apiVersion: e.SHOPIFY_API_VERSION,
        pollSeconds: e.SHOPIFY_POLL_SECONDS,
        lookBackSeconds: e.SHOPIFY_LOOKBACK_SECONDS,
      }
    : undefined;
}
