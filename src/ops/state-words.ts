/**
 * The one wording of each state a person reads, in the CLI and on the dashboard alike: a state said two ways reads as
 * two states. Counts get their plural right (`plural`).
 */

/** "1 record", "2 records", "0 records". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "1 record was", "2 records were". */
export function pluralWas(n: number, one: string, many = `${one}s`): string {
  return `${plural(n, one, many)} ${n === 1 ? 'was' : 'were'}`;
}

/** "13 s", "5 min", "1.5 h": how long, rounded for a person. */
export function durationText(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/**
 * How far behind a stream's feed is: the time since it was last caught up; "not pulled yet" before its first pull,
 * "not caught up yet" when pulled but never to the end.
 */
export function feedBehindText(behindSeconds: number | null, lastPollAt: string | null): string {
  if (behindSeconds !== null) return durationText(behindSeconds);
  return lastPollAt ? FEED_NOT_CAUGHT_UP : FEED_NOT_PULLED;
}
export const FEED_NOT_PULLED = 'not pulled yet';
export const FEED_NOT_CAUGHT_UP = 'not caught up yet';

/**
 * A job's attempts for a person: "2 of 12" while it may run again, "1 (failed for good)" when it failed before its
 * attempts ran out (a bad record is not retried), "3" once it completed.
 */
export function attemptsText(state: string, made: number, max: number): string {
  if (state === 'failed') return made < max ? `${made} (failed for good)` : `${made} of ${max}`;
  if (state === 'completed') return String(made);
  return `${made} of ${max}`;
}

/** Where a version of a record stands among its stream's versions (ops/find.ts). */
export type VersionStanding = 'only' | 'in force' | 'superseded' | 'skipped' | 'failed' | 'pending';

/** "v2 (in force)", "v1 (superseded)", "v3 (skipped)"; the only version is "v1". */
export function versionText(version: number, standing: VersionStanding): string {
  return standing === 'only' ? `v${version}` : `v${version} (${standing})`;
}

/**
 * The failures a newer version of their record superseded, per stream (src/ops/failures-now.ts): "orders 2 failed
 * before a newer version of their record synced".
 */
export function supersededText(streams: ReadonlyArray<{ stream: string; superseded: number }>): string {
  const n = streams.reduce((a, st) => a + st.superseded, 0);
  const by = streams.map((st) => `${st.stream} ${st.superseded}`).join(', ');
  return `${plural(n, 'job')} failed before a newer version of ${n === 1 ? 'its' : 'their'} record synced (${by})`;
}
