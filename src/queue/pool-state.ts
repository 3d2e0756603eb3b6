import type { Queue, Worker } from 'bullmq';
import { defaults } from '../../config/defaults.js';
import type { RedisConnection as Redis } from '../redis/connection.js';
import type { StreamName } from '../records/stream-name.js';
import { jitteredBackoff } from './backoff.js';
import type { FinishGuard } from './finish-guard.js';
import { CallHolds } from './hold/call-holds.js';
import type { CallHoldHooks } from './hold/hold-at-call.js';
import type { OutageHooks } from './hold/hold-job.js';
import type { OutageWatch } from './hold/hold-watch.js';
import type { IntakeResult } from './intake.js';
import type { IntakeData } from './intake-queue.js';
import type { JobResult } from './job-context.js';
import type { JobData } from './queues.js';
import type { StartWorkersOptions } from './start-workers-options.js';

export type RecordWorker = Worker<JobData, JobResult>;
export type IntakeWorker = Worker<IntakeData, IntakeResult>;

/** What the workers of every stream share while the pool starts and runs. */
export interface PoolState {
  workers: Map<StreamName, RecordWorker>;
  intakeWorkers: Map<StreamName, IntakeWorker>;
  /** Jobs running now in this process (record and intake). */
  active: number;
  owned: Queue[];
  /** Each stream's record queue, held together while the service is down. */
  recordQueues: Map<StreamName, Queue>;
  guards: FinishGuard[];
  watch?: OutageWatch;
  /** The look at the catalog for the records that wait for a missing reference (src/queue/wait/). */
  waitWatch?: { lookNow(): void; stop(): Promise<void> };
  /** The outage hooks of the processors, when the service down holds every stream. */
  outage?: OutageHooks & NonNullable<StartWorkersOptions['outage']>;
  /** The held calls' hooks of the processors (with the outage's). */
  calls?: CallHoldHooks;
  backoffStrategy: ReturnType<typeof jitteredBackoff>;
  lockDuration: number;
  maxStalledCount: number;
  /** BullMQ's drainDelay of every worker (seconds). */
  drainSeconds: number;
  /** The connection the pool's queues and workers share (each worker has its own blocking connection besides). */
  conn?: Redis;
}

export function poolState(o: StartWorkersOptions): PoolState {
  const retry = o.retry ?? o.deps.jobs;
  const state: PoolState = {
    workers: new Map(),
    intakeWorkers: new Map(),
    active: 0,
    owned: [],
    recordQueues: new Map(),
    guards: [],
    backoffStrategy: jitteredBackoff({ baseDelayMs: retry.retryBaseDelayMs, maxDelayMs: retry.retryMaxDelayMs, jitter: o.retry?.jitter }),
    lockDuration: o.lockDurationMs ?? defaults.jobLockMs,
    maxStalledCount: o.maxStalledCount ?? o.deps.jobs.attempts,
    drainSeconds: o.drainSeconds ?? defaults.workerDrainSeconds,
  };
  if (o.outage) {
    state.outage = {
      ...o.outage,
      holdAll: async () => {
        await Promise.all([...state.recordQueues.values()].map((q) => q.pause()));
        state.watch?.lookNow();
      },
    };
    // The process's holds (buildDeps's, which its catalog's reads go through too), or the pool's own.
    const holds = o.deps.callHolds ?? new CallHolds({ redis: o.deps.redis, keys: o.deps.keys, logger: o.logger });
    holds.tune({ threshold: o.outage.threshold, firstTrialMs: o.outage.firstProbeMs, maxTrialMs: o.outage.probeMaxMs });
    // A call held or released here: this process's look probes it or wakes its jobs at once.
    holds.listen(() => state.watch?.lookNow());
    state.calls = { holds, ...(o.outage.callWaitMs === undefined ? {} : { waitMs: o.outage.callWaitMs }) };
  }
  return state;
}

/** A processor whose jobs are counted in the pool's `active` while they run. */
export function countJobs<A extends unknown[], R>(s: Pick<PoolState, 'active'>, run: (...args: A) => Promise<R>) {
  return async (...args: A): Promise<R> => {
    s.active++;
    try {
      return await run(...args);
    } finally {
      s.active--;
    }
  };
}
