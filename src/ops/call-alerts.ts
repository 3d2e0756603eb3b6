import { defaults } from '../../config/defaults.js';
import { claimCallAlert, releaseCallAlert, type CallHoldState } from '../queue/hold/call-hold.js';
import { heldJobCounts } from '../queue/hold/call-held-jobs.js';
import { redisKeys, type RedisConnection as Redis } from '../redis/connection.js';

/** An alert claimed in Redis: told by one process; `release` gives the claim back when the send fails. */
export interface ClaimedCallAlert {
  alert: { reason: string; text: string };
  release: () => Promise<void>;
}

const minutes = (s: number) => (s < 120 ? `${s} s` : `${Math.round(s / 60)} min`);

/**
 * A held call of the service (src/queue/hold/call-hold.ts): told once when it has been held `outageSeconds`, with the
 * jobs that wait at it; and once when a hold that was told ends. Claimed in the call's hash, so one process tells it.
 */
export async function callAlerts(
  d: { redis: Redis; prefix: string; head: string; streams: readonly string[]; outageSeconds?: number },
  calls: readonly CallHoldState[],
  now: number,
): Promise<ClaimedCallAlert[]> {
  const keys = redisKeys(d.prefix);
  const limit = (d.outageSeconds ?? defaults.outageAlertSeconds) * 1000;
  const out: ClaimedCallAlert[] = [];
  for (const c of calls) {
    if (c.held && c.since && !c.alerted && now - Date.parse(c.since) >= limit) {
      if (!(await claimCallAlert(d.redis, keys, c.call, 'start'))) continue;
      const waiting = Object.values(await heldJobCounts(d.redis, keys, c.call, d.streams)).reduce((a, b) => a + b, 0);
      const lasted = minutes(Math.round((now - Date.parse(c.since)) / 1000));
      const text =
        `${d.head}: ${c.label} of the service has been HELD since ${c.since} (${lasted}): ${(c.reason ?? '').slice(0, 200)}. ` +
        `Only the jobs whose next step is ${c.label} wait (${waiting} now, none lost, no attempt spent); every other call and stream ` +
        'goes on. One real request of it is tried now and then; it goes on by itself once that works. See: inventory-sync status';
      out.push({ alert: { reason: `call:${c.call}`, text }, release: () => releaseCallAlert(d.redis, keys, c.call, 'start') });
    } else if (!c.held && c.last?.alerted && !c.last.endTold) {
      if (!(await claimCallAlert(d.redis, keys, c.call, 'end'))) continue;
      const text =
        `${d.head}: ${c.label} of the service works again since ${c.last.endedAt}, after ${minutes(c.last.seconds)} held; ` +
        'the jobs that waited at it now run, none lost. Nothing to do.';
      out.push({ alert: { reason: `call-ended:${c.call}`, text }, release: () => releaseCallAlert(d.redis, keys, c.call, 'end') });
    }
  }
  return out;
}
