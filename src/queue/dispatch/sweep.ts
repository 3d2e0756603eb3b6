import type { Logger } from '../../log/logger.js';
import { logRepeated, reasonOf } from '../../log/log-throttle.js';
import { messageOf } from '../../errors/message-of.js';
import type { RedisConnection as Redis } from '../../redis/connection.js';
import type { StreamName } from '../../records/stream-name.js';
import { nextLookAt, readAccountsWork } from './account-work.js';
import { FAILED_RECENT_MS, summarize, writeSummary } from './deployment-summary.js';

/**
 * The sweep: one process of the deployment at a time (a lock for the period) reads every account's queues and marks
 * the accounts whose work no mark told of: jobs queued by the released version (an upgrade in place), a mark Redis
 * refused, a process that died with jobs active. An account with delayed jobs gets a wake at the first one's time, and
 * one with held jobs or records waiting for a reference a look within `lookAgainMs`; those and the accounts with failed
 * jobs no alert told or a call held are handed to `trouble` (their alerts looked at from Redis where they are closed).
 * What it read is summed up for the deployment's /metrics (deployment-summary.ts: one hash, written once a sweep).
 * At start, and every `everyMs`. At 10,000 accounts it is 100 pipelined reads a period (one command an account).
 */

export interface SweepOptions {
  redis: Redis;
  /** The deployment's base prefix: the sweep's lock is under it. */
  base: string;
  everyMs: number;
  accounts: () => ReadonlyArray<{ name: string; prefix: string }>;
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
  logger: Logger;
}

/** One sweep, unless another process swept within the period; answers the accounts it marked. */
export async function sweepOnce(o: SweepOptions): Promise<number> {
  const lock = o.only === undefined ? `${o.base}~sweep` : `${o.base}~sweep~${o.only}`;
  const took = await o.redis.set(lock, '1', 'PX', Math.max(1000, o.everyMs - 1000), 'NX');
  if (took !== 'OK') return 0;
  const now = Date.now();
  const work = await readAccountsWork(o.redis, o.accounts(), o.streams, now - FAILED_RECENT_MS);
  // Refused (Redis full): the figures stay those of the last sweep, until they expire; the marks and wakes go on.
  if (o.only === undefined) {
    await writeSummary(o.redis, o.base, summarize(work, now), o.everyMs).catch((err: unknown) =>
      logRepeated(o.logger, 'warn', `summary:${reasonOf(err)}`, { err: messageOf(err) }, 'could not write the deployment summary (Redis?)'),
    );
  }
  let marked = 0;
  const trouble: string[] = [];
  for (const [name, w] of work) {
    if (w.untold > 0 || w.held > 0 || w.waits > 0 || w.heldCalls > 0) trouble.push(name);
    if (w.ready > 0) {
      await o.mark(name);
      marked++;
    }
    const at = nextLookAt(w, now, o.lookAgainMs);
    if (Number.isFinite(at)) await o.wakeAt(name, at);
  }
  if (trouble.length) await o.trouble?.(trouble);
  return marked;
}

/** Sweeps at start and every `everyMs`. */
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
  const timer = setInterval(sweep, o.everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
