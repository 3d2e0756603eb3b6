import { Queue } from 'bullmq';
import { createRedis } from '../../src/redis/connection.js';
import { failOver, primaryPort, type SentinelAccess } from './local-sentinel.js';

/** What a planned failover cost a worker busy with a queue, in seconds from `SENTINEL FAILOVER`. */
export interface FailoverTiming {
  /** The primary's port before and after. */
  moved: { from: number; to: number };
  /** Ids of the queue's jobs that were running when the failover was asked for: those whose finish it can drop. */
  caught: string[];
  /** To the first job completed on the new primary. */
  nextCompletedS: number;
  /** To the last of `caught` completed on the new primary: until no job waits on the failover. */
  caughtCompletedS: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (ms: number) => Math.round(ms / 100) / 10;

/**
 * Asks the sentinel for a planned failover while a worker runs `queue`'s jobs, and clocks its cost on the new primary
 * only (what the old one took in after the promotion may be dropped when it turns replica). Gives up after timeoutMs.
 */
export async function timePlannedFailover(
  s: SentinelAccess,
  o: { prefix: string; queue: string; timeoutMs?: number },
): Promise<FailoverTiming> {
  const on = async <T>(port: number, use: (q: Queue) => Promise<T>): Promise<T> => {
    const conn = createRedis(`redis://:${encodeURIComponent(s.password)}@127.0.0.1:${port}`);
    const queue = new Queue(o.queue, { connection: conn, prefix: o.prefix });
    try {
      return await use(queue);
    } finally {
      await queue.close();
      conn.disconnect();
    }
  };
  const caught = await on(await primaryPort(s), async (q) => (await q.getActive()).map((j) => j.id!));
  const asked = Date.now();
  const moved = await failOver(s);
  return on(moved.to, async (q) => {
    const start = (await q.getJobCounts('completed')).completed ?? 0;
    const end = asked + (o.timeoutMs ?? 120_000);
    let nextCompletedS = Infinity;
    let caughtCompletedS = Infinity;
    while (nextCompletedS === Infinity || caughtCompletedS === Infinity) {
      const now = Date.now();
      if (now > end) break;
      if (nextCompletedS === Infinity && ((await q.getJobCounts('completed')).completed ?? 0) > start)
        nextCompletedS = seconds(now - asked);
      const states = await Promise.all(caught.map((id) => q.getJobState(id)));
      if (caughtCompletedS === Infinity && states.every((st) => st === 'completed')) caughtCompletedS = seconds(now - asked);
      await sleep(100);
    }
    return { moved, caught, nextCompletedS, caughtCompletedS };
  });
}
