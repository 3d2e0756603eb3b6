import type { RedisConnection as Redis, RedisKeys } from '../../redis/connection.js';
import type { ShareReason } from './share.js';
import { LANES, type BudgetLane } from './budget-lanes.js';

/** A lane's share as every process left it in Redis (share-script.ts), for status, metrics and the charts. */
export interface LaneShare {
  /** Share of the configured budget the program takes now: 1 is all of it. */
  factor: number;
  reason: ShareReason;
  /** Epoch ms since when it is below the configured budget; null when it is not. */
  since: number | null;
  /** Requests a minute the account's other clients spend, as the service's headers show it; null when unknown. */
  otherPerMinute: number | null;
  /** Where that figure comes from: X-RateLimit-Remaining, or a 429 less this program's own sends in its window. */
  otherSource: 'remaining' | '429' | null;
  /** The service's last X-RateLimit-Limit, -Remaining and -Reset (epoch ms) for the lane, when it sent them. */
  service: { limit: number | null; remaining: number | null; resetAt: number | null };
  /** After a crossing: until when (epoch ms) each 429 holds the lane a few seconds (share-yield.ts); null when it does not. */
  yieldsUntil: number | null;
}

const REASONS: readonly ShareReason[] = [
  'configured',
  'shared-429',
  'shared-remaining',
  'service-limit',
  'probing',
  'floor',
  'window-remaining',
  'slow-start',
  'remembered',
];
const num = (v: string | null | undefined) => (v === null || v === undefined || v === '' || !Number.isFinite(Number(v)) ? null : Number(v));

/** Every lane's share (a lane nothing lowered reads as all of its budget). */
export async function readShares(redis: Redis, keys: RedisKeys): Promise<Record<BudgetLane, LaneShare>> {
  const pipe = redis.pipeline();
  for (const lane of LANES)
    pipe.hmget(
      keys.budgetShare(lane),
      'f',
      'reason',
      'since',
      'other',
      'otherAt',
      'winLen',
      'limit',
      'remaining',
      'reset',
      'fw',
      'fwUntil',
      'otherSrc',
      'yieldEnd',
    );
  const replies = (await pipe.exec()) ?? [];
  const out = {} as Record<BudgetLane, LaneShare>;
  LANES.forEach((lane, i) => {
    const [f, reason, since, other, otherAt, winLen, limit, remaining, reset, fw, fwUntil, otherSrc, yieldEnd] = (replies[i]?.[1] ??
      []) as Array<string | null>;
    // What the service's window has left binds until its reset when it is lower than the share (share-script.ts).
    const windowBinds = num(fw) !== null && (num(fwUntil) ?? 0) > Date.now() && num(fw)! < (num(f) ?? 1);
    const factor = windowBinds ? num(fw)! : (num(f) ?? 1);
    // The others' figure is news for two of the service's windows.
    const fresh = num(otherAt) !== null && Date.now() - num(otherAt)! < 2 * (num(winLen) ?? 60_000);
    out[lane] = {
      factor: factor > 0 && factor <= 1 ? factor : 1,
      reason: windowBinds ? 'window-remaining' : REASONS.includes(reason as ShareReason) ? (reason as ShareReason) : 'configured',
      since: num(since) || null,
      otherPerMinute: fresh && num(other) !== null ? Math.round(num(other)! * 60_000 * 10) / 10 : null,
      otherSource: fresh && num(other) !== null ? (otherSrc === '429' ? '429' : 'remaining') : null,
      service: { limit: num(limit), remaining: num(remaining), resetAt: num(reset) },
      yieldsUntil: (num(yieldEnd) ?? 0) > Date.now() ? num(yieldEnd) : null,
    };
  });
  return out;
}

/** Why a lane's effective rate differs from its configured budget, in words (status, the dashboard). */
export function shareReasonText(s: LaneShare): string {
  const from = s.otherSource === '429' ? 'from its 429s, less what this program sent' : 'from X-RateLimit-Remaining';
  const others = s.otherPerMinute === null ? '' : ` (about ${Math.round(s.otherPerMinute)}/min, ${from})`;
  switch (s.reason) {
    case 'configured':
      return 'the configured budget';
    case 'shared-429':
      return (
        `another client of the account spends this budget: answered 429 while within it${others}` +
        (s.yieldsUntil === null
          ? ''
          : `; yielding to it until ${new Date(s.yieldsUntil).toISOString()} (this program's first requests of the ` +
            "service's window still count there: each 429 holds it a few seconds)")
      );
    case 'shared-remaining':
      return `another client of the account spends this budget${others}`;
    case 'service-limit':
      return `the service's X-RateLimit-Limit (${s.service.limit ?? '?'}) is below the configured budget`;
    case 'probing':
      return `climbing back a step at a time since others spent it${others}`;
    case 'window-remaining':
      return (
        `pacing so that the ${s.service.remaining ?? '?'} requests X-RateLimit-Remaining leaves last until its reset ` +
        (s.otherPerMinute === null
          ? '(this window was spent faster)'
          : `(this window was spent faster: another client of the account spends it too${others})`)
      );
    case 'slow-start':
      return (
        'starting below the budget (INVENTORY_RATE_START_PERCENT) and rising a step every second until the ' +
        "full budget or the first 429: nothing is known yet of the account's other clients"
      );
    case 'remembered':
      return `started from the share the account's last processes learnt${others}; climbing back a step at a time`;
    case 'floor':
      return `held at INVENTORY_RATE_FLOOR_PERCENT: the others leave less than that${others}; they may be answered 429`;
  }
}
