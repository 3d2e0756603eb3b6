import type { Worker } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/connection.js';

/**
 * BullMQ's stalled-job check (its moveStalledJobsToWait script, 7 commands on an idle queue, every stalledInterval by
 * every worker) run only when it has something to look at: a job active now, or one the last check marked. Else it
 * would only mark nothing, so two reads (LLEN, SCARD) in one round trip stand for it: an idle account's 6 queues
 * cost ~1 command a second less (issue 36). A job taken up after the skip is marked at the next check, as it would
 * be after a check that found the queue empty, so a dead process's job is taken back as soon as before (within
 * about a lock and an interval: twice JOB_LOCK_SECONDS). A BullMQ without this private method keeps its own check.
 */
export function skipIdleStalledChecks(worker: Worker, conn: Redis): void {
  const w = worker as unknown as { moveStalledJobsToWait?: () => Promise<void> };
  const check = w.moveStalledJobsToWait;
  if (typeof check !== 'function') return;
  w.moveStalledJobsToWait = async () => {
    const replies = (await conn.pipeline().llen(worker.toKey('active')).scard(worker.toKey('stalled')).exec()) ?? [];
    for (const [err] of replies) if (err) throw err;
    const idle = replies.length === 2 && replies.every(([, n]) => Number(n) === 0);
    if (!idle) await check.call(worker);
  };
}
