import type { Failure } from '../failure.js';

/**
 * One hold: streams held for a cause and released by a person or by a probe. While a stream is held no job of it
 * runs (its BullMQ queue is paused), none is pulled, and none spends an attempt: its jobs wait with their progress.
 *
 * One state machine for every cause, per scope (one stream for `refusals`, every stream for `outage` and
 * `redis-refused`), kept in Redis across every process of the prefix (`redis-refused` aside: Redis is what refuses,
 * so each process holds that one in memory, from its own write probe):
 *
 *   running(n) --a job meets the cause--> running(n + 1)        below the threshold
 *   running(n) --a job meets the cause--> held(since, reason)   at the threshold, once across processes
 *   running(n) --a job syncs------------> running(0)
 *   held       --a job meets the cause--> held                  the job waits (no attempt spent)
 *   held       --a probe, still down----> held                  noted; the next probe later, each delay doubled
 *   held       --a probe answers--------> running(0)            `outage`, `redis-refused`; the end kept as the last
 *   held       --resume-----------------> running(0)            a person (`resume`, the dashboard's button), or for
 *                                                               a 401 the credentials' probe once their files changed
 *
 * The causes:
 * - `refusals`: the account refused (401, 403) or the service gave the same refusal for record after record; on a
 *   worker without the outage's probe, the service down on a job's last attempt too. Counted per stream
 *   (BREAKER_THRESHOLD, the "circuit breaker"); released by `resume` (src/queue/hold/refusal-state.ts).
 * - `outage`: the service down (5xx, the network, time-outs) for every job; counted for the account; every stream
 *   holds and one read probes the service; released by the probe (src/queue/hold/outage-state.ts, hold-watch.ts).
 * - `redis-refused`: Redis refuses writes (full, read-only) or does not answer them; every job and pull waits on
 *   Redis itself; released by the write probe (src/queue/hold/write-probe.ts).
 *
 * The surfaces read all causes through one read each (hold-report.ts): `status`, `/readyz`, `/metrics` and the
 * dashboard.
 */
export type HoldCause = 'refusals' | 'outage' | 'redis-refused';

/** The causes a job can meet (the third, Redis refusing, is met by the write probe, not by jobs). */
export type JobHoldCause = Exclude<HoldCause, 'redis-refused'>;

/** Longest reason kept (an error message, which the client has already stripped of credentials). */
export const REASON_MAX = 300;

/** A reason or a probe's answer, cut to REASON_MAX. */
export const clipReason = (text: string): string => (text.length > REASON_MAX ? `${text.slice(0, REASON_MAX)}…` : text);

/**
 * The cause a failed attempt counts toward, if any: a refusal about the account (401, a 403 that is not "the order
 * is completed", the same service refusal again) counts as `refusals`; the service down counts as `outage` when the
 * worker probes for it (`outageProbed`), else as `refusals` on the job's last attempt (its retries spent). Bad
 * records, 429s (held by the budget), record refusals (400, 404, conflicts), Redis and internal errors hold nothing.
 */
export function holdCauseOf(f: Pick<Failure, 'refusal'>, lastAttempt: boolean, outageProbed: boolean): JobHoldCause | undefined {
  if (f.refusal === 'account' || f.refusal === 'repeated') return 'refusals';
  if (f.refusal !== 'service-down') return undefined;
  if (outageProbed) return 'outage';
  return lastAttempt ? 'refusals' : undefined;
}
