import type { Telemetry, Worker } from 'bullmq';
import type { StreamName } from '../records/stream-name.js';
import type { JobData } from './queues.js';
import type { JobResult } from './job-context.js';
import type { IntakeData } from './intake-queue.js';
import type { IntakeResult } from './intake.js';
import type { Config } from '../../config/read-config.js';
import type { Logger } from '../log/logger.js';
import type { RedisTarget } from '../redis/connection.js';
import type { BadRecordRetention } from './bad-record-retention.js';
import type { ConcurrencyBounds, Pace } from './concurrency-sizer.js';
import type { RunnerKind } from './runner-kind.js';
import type { ProcessorOptions, RunnerDeps } from './job-runner.js';
import type { OutageHooks, RefusalHooks } from './hold/hold-job.js';
import type { OutageWatchOptions } from './hold/hold-watch.js';
import type { CallHoldSettings } from './hold/call-holds.js';

/** What `startWorkers` (worker-pool.ts) takes. */
export interface StartWorkersOptions {
  kinds: RunnerKind[];
  /** Redis URL or target (a cluster's seed nodes): the pool opens one connection, and each worker its blocking one. */
  connection: RedisTarget | string;
  prefix: string;
  deps: RunnerDeps;
  /** Jobs run at once per queue (with `sizing`: the first size). */
  concurrency: number;
  /** Concurrency that follows the budget's rate and the service's latency (concurrency-sizer.ts), sized every `everyMs`. Default: fixed. */
  sizing?: { pace: Pace; bounds: ConcurrencyBounds; everyMs?: number };
  logger: Logger;
  /** Retry delays; default deps.jobs. */
  retry?: Pick<Config['jobs'], 'retryBaseDelayMs' | 'retryMaxDelayMs'> & { jitter?: 'equal' | 'full' };
  processor?: Omit<ProcessorOptions, 'rateLimit' | 'breaker' | 'outage' | 'calls' | 'waits'>;
  /**
   * Records that name a product or facility the service lacks wait for it (src/queue/wait/): the catalog is looked at
   * every `lookMs` while any waits, and a record fails for good after `boundMs`. Default: none (they fail as bad records).
   */
  waits?: { lookMs: number; boundMs: number };
  /**
   * The holds of the service down (src/queue/hold/): each named call held while it fails (the jobs whose next step is
   * it wait there), every stream held while the service is down for everything, the read probe that tells the two
   * apart and tells when the service answers again, and the timings. Default: none (the service down is retried job by
   * job, then counted as a refusal on the job's last attempt).
   */
  outage?: Omit<OutageHooks, 'holdAll'> &
    Pick<CallHoldSettings, 'threshold'> &
    Pick<OutageWatchOptions, 'probe' | 'lookMs' | 'idleLookMs' | 'probeMaxMs' | 'firstProbeMs' | 'onEnd'> & {
      /** How long a job waiting at a held call is delayed besides its wake-up, in ms (hold-at-call.ts). */
      callWaitMs?: number;
    };
  /**
   * Each stream's hold for `refusals`, the circuit breaker (src/queue/hold/): its threshold (default
   * BREAKER_THRESHOLD's default) and delays, or false to settle every refusal job by job.
   */
  breaker?: (Omit<RefusalHooks, 'threshold' | 'pause'> & { threshold?: number }) | false;
  /** BullMQ job lock duration, ms: a crashed worker's jobs are taken back after about this long. Default 30 000. */
  lockDurationMs?: number;
  /** Interval of BullMQ's stalled-job check, ms. Default 30 000. */
  stalledIntervalMs?: number;
  /**
   * How long an idle worker's blocking wait for a job lasts, in seconds (BullMQ's drainDelay); a job added, due or
   * resumed ends it at once. Default defaults.workerDrainSeconds.
   */
  drainSeconds?: number;
  /** How many failed bad-record jobs each stream keeps, for how long. Default BAD_RECORDS_KEEP, BAD_RECORDS_KEEP_DAYS. */
  badRecords?: BadRecordRetention;
  /**
   * Times a job may be taken back from a worker that died while running it (SIGKILL, OOM, a lost host) before it
   * fails for good. BullMQ's default, 1, fails a record whose workers happen to die twice under it, though every
   * job kind is safe to run again. Default: the jobs' attempts (deps.jobs.attempts), so only a job that keeps
   * killing its worker ends failed ("job stalled more than allowable limit").
   */
  maxStalledCount?: number;
  /** BullMQ telemetry (tracing on): a `process <stream>` span per attempt, the job span of src/telemetry/. Default: none. */
  telemetry?: Telemetry;
  /**
   * Told of each worker as it is made, before it runs a job (a one-shot run's ledger follows every job they finish):
   * the record workers and the intake workers. Default: none.
   */
  watch?: {
    record?: (worker: Worker<JobData, JobResult>, stream: StreamName) => void;
    intake?: (worker: Worker<IntakeData, IntakeResult>, stream: StreamName) => void;
  };
}
