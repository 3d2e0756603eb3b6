import type { Queue } from 'bullmq';
import type { CatalogApi } from '../../catalog/types.js';
import type { Logger } from '../../log/logger.js';
import type { RedisConnection as Redis, RedisKeys } from '../../redis/connection.js';
import { startLooking } from '../../time/serial-look.js';
import { messageOf } from '../../errors/message-of.js';
import { refOf, refWords, type Reference } from './reference.js';
import { takeWaiting, waitedRefs } from './wait-store.js';
import { promoteJob } from '../promote-job.js';

/** What a look at the catalog for the waiting records needs. */
export interface WaitLookOptions {
  redis: Redis;
  keys: RedisKeys;
  /** The catalog under MAPPING_FILE: a reference exists when it resolves, as a job would resolve it. */
  catalog: CatalogApi;
  /** The record queues, by stream: where the released jobs are promoted. */
  queues: { get(stream: string): Queue | undefined };
  logger: Logger;
  /** The look interval, in ms (WAIT_LOOK_SECONDS): one process reads the catalog per interval, across every process. */
  lookMs: number;
}

/** The records of a stream released because a reference exists now. */
export interface Released {
  stream: string;
  ref: Reference;
  jobs: number;
}

async function exists(catalog: CatalogApi, ref: Reference): Promise<boolean> {
  if (ref.type === 'facility') return (await catalog.facility(ref.name)).ok;
  return (await catalog.product(ref.name)) !== undefined;
}

/**
 * One look for the waiting records: when anything waits, MAPPING_FILE read again if its file changed, the catalog read
 * again from the service (one process per look interval), and the jobs of every reference that exists now promoted,
 * each once. `now` (`catalog refresh`, `jobs retry` of a waiting record): the catalog is read whatever waits and
 * whoever looked last. Answers whether the catalog was read, and what was released.
 */
export async function lookAtWaits(o: WaitLookOptions, now = false): Promise<{ looked: boolean; released: Released[] }> {
  const refs = await waitedRefs(o.redis, o.keys);
  if (!refs.length && !now) return { looked: false, released: [] };
  const claimed = now || (await o.redis.set(o.keys.waitLook(), String(Date.now()), 'PX', Math.max(500, o.lookMs - 500), 'NX'));
  if (!claimed) return { looked: false, released: [] };
  o.catalog.reloadMapping?.();
  await o.catalog.refresh();
  const released: Released[] = [];
  for (const { stream, ref } of refs) {
    const r = refOf(ref);
    if (!(await exists(o.catalog, r))) continue;
    const queue = o.queues.get(stream);
    const ids = await takeWaiting(o.redis, o.keys, stream, ref);
    const promoted = queue ? await Promise.all(ids.map((id) => promoteJob(queue, id))) : [];
    const jobs = promoted.filter(Boolean).length;
    released.push({ stream, ref: r, jobs });
    o.logger.info({ stream, waitedFor: refWords(r), jobs }, `${refWords(r)} exists now: ${jobs} waiting ${stream} record(s) go on`);
  }
  return { looked: true, released };
}

/** Looks every lookMs while the process runs; `lookNow` looks at once (a record just began to wait). */
export function startWaitWatch(o: WaitLookOptions): { lookNow(): void; stop(): Promise<void> } {
  return startLooking(
    () => lookAtWaits(o),
    o.lookMs,
    (err) => o.logger.warn({ err: messageOf(err) }, 'could not look at the catalog for the waiting records; the next look tries again'),
  );
}
