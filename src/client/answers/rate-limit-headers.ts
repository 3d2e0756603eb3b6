/** What an answer says of the account's budget (docs/service.md "Budgets"). */
export interface RateLimitHeaders {
  /** X-RateLimit-Limit: requests the service allows in its window. */
  limit?: number;
  /** X-RateLimit-Remaining: requests left in the window, by every client of the account together. */
  remaining?: number;
  /** X-RateLimit-Reset as epoch ms: when the window ends. */
  resetAt?: number;
}

type Headers = Readonly<Record<string, string | string[] | undefined>>;

function whole(headers: Headers, name: string): number | undefined {
  const raw = headers[name];
  const v = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (!v || !/^\d+(\.\d+)?$/.test(v)) return undefined;
  return Number(v);
}

/**
 * The X-RateLimit-* headers of an answer (200 or 429), each only when present and numeric. The reset is read by
 * magnitude, as classify.ts reads it for a 429: epoch ms (≥ 10¹²), epoch seconds (≥ 10⁹), else seconds from now.
 */
export function readRateLimitHeaders(headers: Headers, now = Date.now()): RateLimitHeaders {
  const out: RateLimitHeaders = {};
  const limit = whole(headers, 'x-ratelimit-limit');
  const remaining = whole(headers, 'x-ratelimit-remaining');
  const reset = whole(headers, 'x-ratelimit-reset');
  if (limit !== undefined && limit > 0) out.limit = Math.floor(limit);
  if (remaining !== undefined) out.remaining = Math.floor(remaining);
  if (reset !== undefined) out.resetAt = Math.ceil(reset >= 1e12 ? reset : reset >= 1e9 ? reset * 1000 : now + reset * 1000);
  return out;
}
