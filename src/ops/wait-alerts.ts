import { defaults } from '../../config/defaults.js';
import { refKey } from '../queue/wait/reference.js';
import { waitText } from '../queue/wait/wait-report.js';
import { readWaitGroups } from '../queue/wait/wait-store.js';
import { redisKeys, type RedisConnection as Redis } from '../redis/connection.js';

/** Most waits told in one look: a broken upstream can name thousands of unknown products at once. */
const MAX_PER_LOOK = 5;

/**
 * Records that have waited for a missing reference longer than WAIT_ALERT_HOURS: told once per (stream, reference) and
 * wait (its since), claimed in Redis so that one process tells it.
 */
export async function waitAlerts(
  d: { redis: Redis; prefix: string; head: string; alertHours?: number },
  now: number,
): Promise<Array<{ alert: { reason: string; text: string }; release: () => Promise<void> }>> {
  const limitMs = (d.alertHours ?? defaults.waitAlertHours) * 3_600_000;
  const old = (await readWaitGroups(d.redis, redisKeys(d.prefix))).filter((g) => now - g.since >= limitMs);
  const out = [];
  for (const g of old) {
    if (out.length >= MAX_PER_LOOK) break;
    const claim = `${d.prefix}:alert:wait:${g.stream}:${refKey(g.ref)}:${g.since}`;
    if ((await d.redis.set(claim, String(now), 'EX', 30 * 86_400, 'NX')) !== 'OK') continue;
    const hours = Math.round((now - g.since) / 360_000) / 10;
    const text =
      `${d.head}: ${waitText(g)} (${hours} h, longer than WAIT_ALERT_HOURS): the service lacks it. Add it to the service or ` +
      'map the name in MAPPING_FILE, and they go on by themselves (no attempt spent); past WAIT_FOR_REFERENCE_HOURS they fail ' +
      'for good. See: inventory-sync status';
    out.push({ alert: { reason: `wait:${g.stream}:${refKey(g.ref)}`, text }, release: async () => void (await d.redis.del(claim)) });
  }
  return out;
}
