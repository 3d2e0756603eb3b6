import type { Queue } from 'bullmq';

/** A stream's jobs not yet run (waiting, delayed, prioritized; a paused queue's wait too), asked at most once per `cacheMs`. */
export function backlogOf(queue: Pick<Queue, 'getJobCounts'>, cacheMs: number, now: () => number = Date.now): () => Promise<number> {
  let value = 0;
  let at = -Infinity;
  let asking: Promise<number> | undefined;
  return () => {
    if (now() - at < cacheMs) return Promise.resolve(value);
    asking ??= queue
      .getJobCounts('waiting', 'delayed', 'prioritized')
      .then((c) => {
        value = Object.values(c).reduce((a, b) => a + b, 0);
        at = now();
        return value;
      })
      .finally(() => (asking = undefined));
    return asking;
  };
}
