/** Why a store request failed, as operators and the pull branch on it (never on message text). */
export type StoreErrorCode =
  'STORE_UNAUTHORIZED' | 'STORE_ACCESS_DENIED' | 'STORE_NOT_A_STORE' | 'STORE_UNAVAILABLE' | 'STORE_THROTTLED' | 'STORE_BAD_RESPONSE';

/** A failed request to a store's Admin API: a code, whether a later try can succeed, and what to do (one line each). */
export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    readonly retryable: boolean,
    readonly hint: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

/** What to do about each code: the one table of the store's hints (docs/shopify.md, "When it goes wrong"). */
export const STORE_HINTS: Record<StoreErrorCode, string> = {
  STORE_UNAUTHORIZED:
    "Check SHOPIFY_ACCESS_TOKEN: the custom app's Admin API access token (Settings > Apps > Develop apps > the app > " +
    "API credentials); an uninstalled app's token is refused. The pull waits and tries again each run.",
  STORE_ACCESS_DENIED:
    'Give the custom app the read_orders scope (read_locations for check, write access to webhooks for ' +
    '--register-webhooks), install it again and set the new token.',
  STORE_NOT_A_STORE:
    "SHOPIFY_STORE_URL must be the store's own origin, https://{store}.myshopify.com (not the shop's domain), " +
    'and SHOPIFY_API_VERSION a version Shopify supports.',
  STORE_UNAVAILABLE: 'The store did not answer or answered 5xx/429: tried again with backoff, then at the next run.',
  STORE_THROTTLED: "The store's query cost bucket stayed empty: another app of the store may spend it; tried again at the next run.",
  STORE_BAD_RESPONSE: 'The store answered in an unexpected shape; check SHOPIFY_API_VERSION.',
};

/** A StoreError with its code's hint. */
export function storeError(code: StoreErrorCode, message: string, status?: number): StoreError {
  const retryable = code === 'STORE_UNAVAILABLE' || code === 'STORE_THROTTLED';
  return new StoreError(code, message, retryable, STORE_HINTS[code], status);
}
