import type { Queue } from 'bullmq';
import { defaults } from '../../config/defaults.js';
import type { FetchPageOptions } from './upstream-client.js';
import type { SourcePage } from './feed-source.js';
import { walkFeed, type WalkedPage } from './walk-feed.js';
import type { Logger } from '../log/logger.js';
import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import { recordPage, recordPullError, recordQuietPage } from './feed-state.js';
import { takeLock } from '../redis/redis-lock.js';
import { isPaused } from '../queue/hold/refusal-state.js';
import { isOutage } from '../queue/hold/outage-state.js';
import type { JobData } from '../queue/queues.js';
import { addJobs, recordJob, recordLabel } from '../queue/record-jobs.js';
import type { StreamName } from '../records/stream-name.js';
import type { CheckedKind } from '../records/record-kind.js';
import { messageOf } from '../errors/message-of.js';

export interface PullStreamOptions {
  /** The stream's kind (its name, key and record schema). */
  kind: CheckedKind;
  upstream: { fetchPage(stream: StreamName, o: FetchPageOptions): Promise<SourcePage> };
  /** The stream's queue, or how to open it (a scheduled pull's: opened only once a page has records). */
  queue: Queue<JobData> | (() => Queue<JobData>);
  redis: Redis;
  keys: RedisKeys;
  pageSize: number;
  logger: Logger;
  signal?: AbortSignal;
  /** How long to wait for another process's pull of the same stream to end; 0 returns at once. Default 0. */
  lockWaitMs?: number;
  /** Life of the per-stream pull lock in ms, renewed while pulling. Default 60 000. */
  lockTtlMs?: number;
  /** Ask the first page before taking the lock (a scheduled pull: an empty feed then takes no lock). Default false. */
  lookFirst?: boolean;
  /** Told the job id of every record of each page once it is queued (repeats and re-deliveries too): a run's ledger. */
  onRecords?: (ids: readonly string[]) => void;
}

export interface PullResult {
  pages: number;
  /** New jobs. */
  queued: number;
  /** Records whose job already existed (re-deliveries). */
  duplicates: number;
  /** Records that do not match their shape (queued too; they fail at once). */
  invalid: number;
  /** The feed said `hasMore: false`. */
  caughtUp: boolean;
  /** Another process was pulling this stream; nothing was done. */
  locked: boolean;
  /** The stream's breaker had paused it (src/queue/hold/); nothing was pulled until `resume`. */
  paused?: boolean;
  /** The service was down (an outage held every stream); nothing was pulled until it answers again. */
  held?: boolean;
  /**
   * A scheduled pull (`lookFirst`) found nothing new at the cursor: its run is recorded in the feed state alone
   * (`quietAt`, recordQuietPage), which the schedule's readers take as its last run (schedule-info.ts).
   */
  quiet?: boolean;
}

/**
 * Pulls a stream from its cursor until caught up: each page is queued with one addBulk and only then is
 * the cursor advanced, so a crash in between re-fetches the page (at-least-once; job ids dedupe).
 * One process pulls a stream at a time (Redis lock). A record that cannot be read or checked becomes a job that
 * fails at once (recordJob), so no record can hold the page, the cursor or the stream back.
 * With `lookFirst` (a scheduled pull, which the due set's claim already makes the only one of its slot) the first
 * page is asked before anything else is read but the cursor: an empty feed costs one read and one write (the poll's
 * time), and the stream's holds (its breaker, the outage) are read, and the lock taken, only for a page with records
 * (the page asked again if another pull moved the cursor meanwhile). A hold keeps records in the feed; an empty page
 * has none to keep.
 */
export async function pullStream(o: PullStreamOptions): Promise<PullResult> {
  const result: PullResult = { pages: 0, queued: 0, duplicates: 0, invalid: 0, caughtUp: false, locked: false };
  try {
    const first = o.lookFirst ? await firstPage(o, (await o.redis.get(o.keys.cursor(o.kind.stream))) ?? undefined) : undefined;
    if (first && isQuiet(first)) {
      await recordQuietPage(o.redis, o.keys, o.kind.stream, first.page.cursor);
      return { ...result, pages: 1, caughtUp: true, quiet: true };
    }
    const hold = await holdOf(o);
    if (hold) {
      await first?.pages.return(undefined);
      return { ...result, [hold]: true };
    }
    return await pullLocked(o, result, first);
  } catch (err) {
    const message = messageOf(err);
    await recordPullError(o.redis, o.keys, o.kind.stream, message).catch(() => undefined);
    throw err;
  }
}

/** What holds the stream, if anything: its breaker's pause or the service down (two reads sent at once). */
async function holdOf(o: PullStreamOptions): Promise<'paused' | 'held' | undefined> {
  const [paused, held] = await Promise.all([isPaused(o.redis, o.keys, o.kind.stream), isOutage(o.redis, o.keys)]);
  // A paused stream queues no more: the feed keeps its records, and the cursor waits for the resume.
  if (paused) {
    o.logger.debug({ stream: o.kind.stream }, 'stream paused by its breaker; not pulled (inventory-sync resume)');
    return 'paused';
  }
  // The service down for everything: the feed keeps its records until it answers again (src/queue/hold/).
  if (held) o.logger.debug({ stream: o.kind.stream }, 'the service is down; not pulled until it answers again');
  return held ? 'held' : undefined;
}

/** A walk of the feed from `cursor`, its first page asked (a walk that goes on under the lock). */
interface FirstPage extends WalkedPage {
  pages: AsyncGenerator<WalkedPage>;
}

async function firstPage(o: PullStreamOptions, cursor: string | undefined): Promise<FirstPage | undefined> {
  const pages = walk(o, cursor);
  const next = await pages.next();
  return next.done ? undefined : { ...next.value, pages };
}

/** The feed has nothing new: an empty last page at the cursor the pull started from. */
const isQuiet = (p: WalkedPage) => p.page.items.length === 0 && !p.page.hasMore && p.page.cursor === p.after;

function walk(o: PullStreamOptions, cursor: string | undefined) {
  return walkFeed({
    stream: o.kind.stream,
    upstream: o.upstream,
    cursor,
    pageSize: o.pageSize,
    signal: o.signal,
    onSmaller: (limit) =>
      o.logger.warn(
        { stream: o.kind.stream, limit },
        `feed page too large; asking for ${limit} records at a time for the rest of this pull`,
      ),
  });
}

/** The pull under the stream's lock: from the cursor read under it (a first page asked after the same cursor is kept). */
async function pullLocked(o: PullStreamOptions, result: PullResult, first: FirstPage | undefined): Promise<PullResult> {
  const lock = await takeLock(o.redis, o.keys.lock('pull', o.kind.stream), {
    ttlMs: o.lockTtlMs ?? defaults.pullLockTtlMs,
    waitMs: o.lockWaitMs ?? 0,
  });
  if (!lock) {
    await first?.pages.return(undefined);
    o.logger.debug({ stream: o.kind.stream }, 'another process is pulling this stream; skipped');
    return { ...result, locked: true };
  }
  try {
    const cursor = (await o.redis.get(o.keys.cursor(o.kind.stream))) ?? undefined;
    const kept = first && first.after === cursor ? first : undefined;
    if (first && !kept) await first.pages.return(undefined);
    const pages = kept ? withFirst(kept) : walk(o, cursor);
    for await (const { after, page, stalled } of pages) {
      const counts = await queuePage(o, page);
      await recordPage(o.redis.multi(), o.keys, o.kind.stream, {
        after,
        cursor: page.cursor,
        size: page.items.length,
        ...counts,
        caughtUp: !page.hasMore,
      }).exec();
      result.pages++;
      result.queued += counts.queued;
      result.duplicates += counts.duplicates;
      result.invalid += counts.invalid;
      if (!page.hasMore) {
        result.caughtUp = true;
        break;
      }
      if (stalled) {
        o.logger.warn(
          { stream: o.kind.stream },
          'feed said hasMore but gave an empty page and the same cursor; stopping until the next poll',
        );
        break;
      }
      if (!lock.held()) {
        o.logger.warn({ stream: o.kind.stream }, 'pull lock expired while pulling; stopping (the next poll resumes from the cursor)');
        break;
      }
    }
    if (result.queued > 0 || result.invalid > 0) o.logger.info({ stream: o.kind.stream, ...result }, 'feed records queued');
    return result;
  } finally {
    await lock.release();
  }
}

/** The walk's pages with its first page (already asked) in front. */
async function* withFirst(first: FirstPage): AsyncGenerator<WalkedPage> {
  yield first;
  yield* first.pages;
}

async function queuePage(o: PullStreamOptions, page: SourcePage) {
  let invalid = 0;
  const jobs = page.items.map((raw) => {
    const { job, valid, problems } = recordJob(o.kind, raw, 'feed');
    if (!valid) {
      invalid++;
      o.logger.warn(
        { stream: o.kind.stream, jobId: job.opts.jobId, record: recordLabel(o.kind, job.data, job.opts.jobId), problems },
        'invalid feed record queued to fail at once as BAD_RECORD; fix it upstream (a corrected delivery becomes a new job)',
      );
    }
    return job;
  });
  // A source that counts what it found first (a store, beside its webhooks) is told which jobs were new.
  // An empty page (a first pull of an empty feed: no cursor yet) opens no queue.
  const { queued, duplicates, fresh } =
    jobs.length === 0
      ? { queued: 0, duplicates: 0, fresh: new Set<string>() }
      : await addJobs(typeof o.queue === 'function' ? o.queue() : o.queue, o.redis, jobs, o.kind, { fresh: page.queued !== undefined });
  if (page.queued && fresh) await page.queued(jobs.map((j) => fresh.has(j.opts.jobId)));
  o.onRecords?.(jobs.map((j) => j.opts.jobId));
  const last = jobs.at(-1);
  return { queued, duplicates, invalid, newest: last ? recordLabel(o.kind, last.data, last.opts.jobId) : undefined };
}
