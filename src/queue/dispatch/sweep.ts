import type { Logger } from '../../log/logger.js';
import { logRepeated, reasonOf } from '../../log/log-throttle.js';
import { messageOf } from '../../errors/message-of.js';
import type { RedisConnection as Redis } from '../../redis/connection.js';
import type { StreamName } from '../../records/stream-name.js';
import { nextLookAt, readAccountsWork, type PolledFeed } from './account-work.js';
import { FAILED_RECENT_MS, summarize, writeSummary } from './deployment-summary.js';

/**
 * The sweep: one process of the deployment at a time (a lock for the period) reads every account's queues and marks
 * the accounts whose work no mark told of: jobs queued by the released version (an upgrade in place), a mark Redis
 * refused, a process that died with jobs active. An account with delayed jobs gets a wake at the first one's time, and
 * one with held jobs or records waiting for a reference a look within `lookAgainMs`; those and the accounts with failed
 * jobs no alert told or a call held are handed to `trouble` (their alerts looked at from Redis where they are closed).
 * What it read is summed up for the deployment's /metrics (deployment-summary.ts: one hash, written once a sweep).
 * The accounts whose charts' minute is not "caught up, no requests" (in trouble, or a polled stream behind) are handed
 * to `minute`, which samples them and marks the minute as one the deployment ran (src/ops/flow-minutes.ts).
 * At start, and once every period of `everyMs` counted from the epoch (a minute's sweep in each minute, whichever
 * process takes it). At 10,000 accounts it is 100 pipelined reads a period (one command an account and one a polled
 * stream, in the script).
 */

export interface SweepOptions {
  redis: Redis;
  /** The deployment's base prefix: the sweep's lock is under it. */
  base: string;
  everyMs: number;
  /** The accounts, each with its polled streams (judged behind or not: account-work.ts). */
  accounts: () => ReadonlyArray<{ name: string; prefix: string; polled?: readonly PolledFeed[] }>;
  streams: readonly StreamName[];
  mark(account: string): Promise<void>;
  wakeAt(account: string, at: number): Promise<void>;
  lookAgainMs: number;
  /**
   * `worker --account NAME`: the process runs that account of the file alone. It sweeps it under a lock of its own
   * (not the deployment's, which would keep the whole file's processes from sweeping for the period) and writes no
   * deployment summary (one account's figures would stand for the deployment's).
   */
  only?: string;
  /** The accounts whose alerts need a look (failures untold, held jobs or calls, records waiting), once a sweep. */
  trouble?(accounts: string[]): Promise<void>;
  /**
   * Once a sweep that read every account: the accounts in trouble or with a polled stream behind, whose minute of the
   * charts is sampled; the others' minute is "caught up, no requests" (src/ops/flow-minutes.ts).
   */
  minute?(accounts: string[], now: number): Promise<void>;
  logger: Logger;
}

/** The end of the sweep period `now` is in (periods of `everyMs` from the epoch). */
const periodEnd = (now: number, everyMs: number) => (Math.floor(now / everyMs) + 1) * everyMs;

/** One sweep, unless another process swept within the period; answers the accounts it marked. */
export async function sweepOnce(o: SweepOptions): Promise<number> {
  const lock = o.only === undefined ? `${o.base}~sweep` : `${o.base}~sweep~${o.only}`;
  // Held to the period's end: one sweep a period, and the next period's first tick takes it.
  const started = Date.now();
  const took = await o.redis.set(lock, '1', 'PX', Math.max(1, periodEnd(started, o.everyMs) - started), 'NX');
  if (took !== 'OK') return 0;
  const now = Date.now();
  const accounts = o.accounts();
  const work = await readAccountsWork(o.redis, accounts, o.streams, now - FAILED_RECENT_MS);
  // Refused (Redis full): the figures stay those of the last sweep, until they expire; the marks and wakes go on.
  if (o.only === undefined) {
    await writeSummary(o.redis, o.base, summarize(work, now), o.everyMs).catch((err: unknown) =>
      logRepeated(o.logger, 'warn', `summary:${reasonOf(err)}`, { err: messageOf(err) }, 'could not write the deployment summary (Redis?)'),
    );
  }
  let marked = 0;
  const trouble: string[] = [];
  const sampled: string[] = [];
  for (const [name, w] of work) {
    const troubled = w.untold > 0 || w.held > 0 || w.waits > 0 || w.heldCalls > 0;
    if (troubled) trouble.push(name);
    if (troubled || w.behind > 0) sampled.push(name);
    if (w.ready > 0) {
      await o.mark(name);
      marked++;
    }
    const at = nextLookAt(w, now, o.lookAgainMs);
    if (Number.isFinite(at)) await o.wakeAt(name, at);
  }
  // An account not read (its read failed) might be behind: the minute is left a gap rather than told well.
  await Promise.all([
    work.size === accounts.length ? o.minute?.(sampled, now) : undefined,
    trouble.length ? o.trouble?.(trouble) : undefined,
  ]);
  return marked;
}

/** Sweeps at start and once a period of `everyMs` (a moment after it begins, a process's own). */
export function startSweep(o: SweepOptions): { stop(): void } {
  const sweep = () =>
    void sweepOnce(o).then(
      (marked) => {
        if (marked) o.logger.debug({ marked }, `the sweep found work in ${marked} account(s): marked ready`);
      },
      (err: unknown) =>
        logRepeated(
          o.logger,
          'warn',
          `sweep:${reasonOf(err)}`,
          { err: messageOf(err) },
          'could not sweep the accounts (Redis?); tried again',
        ),
    );
  sweep();
  // A moment into each period: the processes do not all ask for the lock at its first millisecond.
  const offsetMs = Math.floor(Math.random() * Math.min(2000, o.everyMs / 10));
  let timer: NodeJS.Timeout;
  const next = () => {
    timer = setTimeout(
      () => {
        sweep();
        next();
      },
      periodEnd(Date.now(), o.everyMs) + offsetMs - Date.now(),
    );
    timer.unref();
  };
  next();
  return { stop: () => clearTimeout(timer) };
}
