import type { RedisConnection as Redis, RedisKeys } from '../../redis/connection.js';
import { readLastOutage, readOutage, type EndedOutage, type OutageState } from './outage-state.js';
import { readBreaker, type BreakerState } from './refusal-state.js';
import type { WriteState } from './write-probe.js';
import { readCallHolds, type CallHoldState } from './call-hold.js';

/**
 * Every hold as it is now (hold.ts), read once for each surface: `status` and the dashboard (src/ops/status-report.ts),
 * `/readyz` (src/ops/hold-checks.ts), `/metrics` (src/app/metric-sources.ts), alerts, `sync --once`'s summary
 * (src/app/runtime.ts) and the credentials' probe of a 401 pause (src/app/unauthorized-resume.ts).
 */
export interface HoldReport {
  /** Each stream's hold for `refusals` (the circuit breaker), in the order asked. */
  streams: BreakerState[];
  /** The hold for `outage`: every stream, while the service is down. */
  outage: OutageState;
  /** Each named call of the service's hold (call-hold.ts): held, only the jobs whose next step it is wait. */
  calls: CallHoldState[];
  /** The last outage that ended (within 30 days), when asked for. */
  lastOutage?: EndedOutage | undefined;
  /** The hold for `redis-refused`, as this process's write probe sees it, when it runs one. */
  redisWrites?: WriteState;
}

/** Reads the holds in Redis (and this process's write probe, when given). */
export async function readHolds(
  redis: Redis,
  keys: RedisKeys,
  streams: readonly string[],
  o: { lastOutage?: boolean; writes?: () => WriteState } = {},
): Promise<HoldReport> {
  const [refusals, outage, calls, lastOutage] = await Promise.all([
    Promise.all(streams.map((s) => readBreaker(redis, keys, s))),
    readOutage(redis, keys),
    readCallHolds(redis, keys),
    o.lastOutage ? readLastOutage(redis, keys) : undefined,
  ]);
  return {
    streams: refusals,
    outage,
    calls,
    ...(o.lastOutage ? { lastOutage } : {}),
    ...(o.writes ? { redisWrites: o.writes() } : {}),
  };
}

/** Whether a stream is held now, for any cause kept in Redis, and so takes no job and pulls nothing. */
export function isHeld(report: Pick<HoldReport, 'streams' | 'outage'>, stream: string): boolean {
  return report.outage.open || report.streams.some((b) => b.stream === stream && b.paused);
}
