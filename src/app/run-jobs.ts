import type { Queue } from 'bullmq';
import { defaults } from '../../config/defaults.js';
import type { JobResult } from '../queue/job-context.js';
import type { JobEnd } from '../ops/repair-report.js';
import { addJobs, type RecordJob } from '../queue/record-jobs.js';
import { kindOf } from '../records/records.js';
import type { StreamName } from '../records/stream-name.js';
import { kindsFor, waitForOutageEnd, workersFor, type RunOptions, type RuntimeDeps } from './runtime.js';

const FINAL = new Set(['completed', 'failed']);

async function endOf(queue: Queue, stream: StreamName, jobId: string): Promise<JobEnd> {
  let job = await queue.getJob(jobId);
  if (!job) return { stream, jobId, state: 'unknown' };
  const state = await job.getState();
  // Read again once final: the job read above may be from before it completed (no return value, no failed reason yet).
  if (FINAL.has(state)) job = (await queue.getJob(jobId)) ?? job;
  const rv = job.returnvalue as JobResult | undefined;
  return {
    stream,
    jobId,
    state,
    ...(state === 'completed' && rv ? { outcome: rv.outcome, summary: rv.summary } : {}),
    ...(state === 'failed' ? { error: job.failedReason } : {}),
  };
}

/**
 * Queues the given jobs and works them with in-process workers (the same runner, budgets and locks as `sync`) until
 * each one completed or failed for good (retries included), or its stream's breaker paused it.
 */
export async function runRecordJobs(d: RuntimeDeps, jobs: RecordJob[], o: RunOptions): Promise<JobEnd[]> {
  const streams = [...new Set(jobs.map((j) => j.name))];
  if (!jobs.length) return [];
  // Each job's end is the command's output: a record's failure is not logged again as an error.
  const pool = await workersFor(d, kindsFor(o.kinds, streams), o, { oneShot: true });
  try {
    for (const stream of streams) {
      const mine = jobs.filter((j) => j.name === stream);
      await addJobs(d.queues.get(stream), d.redis, mine, kindOf(d.kinds, stream));
    }
    const ends = new Map<string, JobEnd>();
    for (;;) {
      await waitForOutageEnd(d, o);
      for (const j of jobs) {
        if (ends.has(j.opts.jobId)) continue;
        const queue = d.queues.get(j.name);
        const end = await endOf(queue, j.name, j.opts.jobId);
        if (FINAL.has(end.state) || end.state === 'unknown' || ((await queue.isPaused()) && end.state !== 'active'))
          ends.set(j.opts.jobId, end);
      }
      if (ends.size === jobs.length) break;
      o.signal?.throwIfAborted();
      await new Promise((r) => setTimeout(r, o.pollMs ?? defaults.drainPollMs));
    }
    return jobs.map((j) => ends.get(j.opts.jobId)!);
  } finally {
    await pool.close(d.config.shutdownGraceSeconds * 1000);
  }
}
