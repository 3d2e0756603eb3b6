import type { Worker } from 'bullmq';
import { replyCode } from '../errors/reply-code.js';
import { findRedisFailure } from '../redis/errors.js';
import type { RedisConnection as Redis } from '../redis/connection.js';

/** While Redis refuses writes, how often a refused worker's wake-up marker is tried again, in ms. */
export const WAKE_RETRY_MS = 2_000;

/** Redis's refusals of a write that pass once it is freed: full (OOM), read-only (READONLY). */
const REFUSALS = new Set(['OOM', 'READONLY']);

const refusedWrite = (err: unknown) => {
  const found = findRedisFailure(err);
  return found?.replied === true && REFUSALS.has(replyCode(found.error) ?? '');
};

/**
 * A BullMQ worker's fetch that Redis refused (its moveToActive script, a write: OOM while full) is only emitted as an
 * error: the worker goes back to its blocking wait on the queue's marker set for a whole drainDelay (60 s,
 * WORKER_DRAIN_SECONDS's default) when it had taken the marker or was waiting for a delayed job, and nothing writes a
 * marker once Redis takes writes again (the jobs are there already). Work then went on up to a minute after the raise.
 *
 * So after such an error a marker of the worker's own (a member per worker, so that each worker of every process gets
 * one) is written every `everyMs` until Redis takes it: the write that passes wakes the worker at once, and it asks
 * for a job as BullMQ does for any marker of score 0. A worker that was not waiting takes the marker later, for one
 * empty ask. Answers the handler for the worker's 'error' events.
 */
export function wakeAfterRefusal(worker: Worker, conn: Redis, everyMs = WAKE_RETRY_MS): (err: unknown) => void {
  let timer: NodeJS.Timeout | undefined;
  let writing = false;
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
  };
  const tryWake = () => {
    if (!worker.isRunning() || worker.closing) return stop();
    if (writing) return;
    writing = true;
    conn
      .zadd(worker.toKey('marker'), 0, `wake:${worker.id}`)
      .then(stop, () => undefined)
      .finally(() => (writing = false));
  };
  return (err) => {
    if (timer || !refusedWrite(err)) return;
    timer = setInterval(tryWake, everyMs);
    timer.unref();
  };
}
