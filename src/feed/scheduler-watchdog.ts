import type { Queue } from 'bullmq';
import type { Config } from '../../config/read-config.js';
import { settingValues } from '../../config/kind-setting.js';
import type { FeedKind } from './feed-kind.js';
import type { PullSchedule } from '../records/stream-name.js';

/** What scheduling and running a kind's pulls needs of it. */
export type PulledKind = FeedKind;

/** What the control queue keeps of finished pulls. */
const KEEP = { removeOnComplete: { count: 200 }, removeOnFail: { age: 7 * 24 * 3600, count: 1_000 } };

/** A scheduler's next job may sit active this long (taken, its next run not yet added) before the chain counts as broken. */
const TAKEN_GRACE_MS = 2_000;

/** How a kind's stream is pulled with this configuration: every few seconds (a ticker) or on a cron (a job scheduler). */
export function pullScheduleOf(kind: PulledKind, schedule: Config['schedule']): PullSchedule {
  return kind.feed.pull(settingValues(kind, schedule));
}

/** Upserts a stream's job scheduler (its `pull`: an interval or a cron, from the configuration); its next run is added too. */
export async function upsertScheduler(queue: Queue, kind: PulledKind, schedule: Config['schedule']): Promise<void> {
  const { stream } = kind;
  const { scheduler } = kind.feed;
  const pull = pullScheduleOf(kind, schedule);
  const repeat = 'every' in pull ? { every: Math.round(pull.every * 1000) } : pull;
  // One attempt: a run that did not fetch (a failure, a hold) is made up once, later (make-up.ts), not retried here.
  await queue.upsertJobScheduler(scheduler, repeat, { name: scheduler, data: { stream, scheduler }, opts: { ...KEEP, attempts: 1 } });
}

/**
 * Whether a scheduler's chain is whole: it exists and its next run is a job waiting for its time. A worker that takes a
 * scheduled job adds the next run first; when Redis refuses that write (full, read-only), the taken job is left active
 * with no next run, and BullMQ would mend it only when its lock expires and the stalled-job check takes it back.
 */
export async function schedulerWhole(queue: Queue, id: string, now = Date.now()): Promise<boolean> {
  const s = await queue.getJobScheduler(id);
  if (!s?.next) return false;
  const job = await queue.getJob(`repeat:${id}:${s.next}`);
  if (!job) return false;
  const state = await job.getState();
  if (state === 'delayed' || state === 'waiting' || state === 'prioritized' || state === 'waiting-children') return true;
  return state === 'active' && now - (job.processedOn ?? now) < TAKEN_GRACE_MS;
}

/** Upserts every scheduler whose chain is broken; answers their ids. */
export async function mendSchedulers(queue: Queue, kinds: readonly PulledKind[], schedule: Config['schedule']): Promise<string[]> {
  const mended: string[] = [];
  for (const kind of kinds) {
    if (await schedulerWhole(queue, kind.feed.scheduler)) continue;
    await upsertScheduler(queue, kind, schedule);
    mended.push(kind.feed.scheduler);
  }
  return mended;
}
