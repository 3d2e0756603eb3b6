import type { Readable } from 'node:stream';
import { defaults } from '../../config/defaults.js';
import type { Config } from '../../config/read-config.js';
import type { CatalogApi } from '../catalog/types.js';
import type { ServiceApi } from '../client/service-api.js';
import type { FeedSource } from '../feed/feed-source.js';
import { pulledKinds } from './pulled-kinds.js';
import type { Logger } from '../log/logger.js';
import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import type { Control } from '../feed/control.js';
import { startSchedules } from './start-schedules.js';
import type { DueLoop } from '../feed/due-loop.js';
import { kindOf } from '../records/records.js';
import { waitForIdle } from '../queue/drain.js';
import { importNdjson, type ImportProgress, type ImportResult, type ReadAs } from '../feed/importer.js';
import type { RunnerDeps } from '../queue/job-runner.js';
import { pullStream, type PullResult } from '../feed/producer.js';
import type { QueueSet } from '../queue/queues.js';
import type { Tracing } from '../telemetry/tracing.js';
import type { StreamName } from '../records/stream-name.js';
import { startWorkers, type StartWorkersOptions, type WorkerPool } from '../queue/worker-pool.js';
import { sizeConcurrency, type Pace } from '../queue/concurrency-sizer.js';
import { probeOnce } from '../queue/hold/outage-probe.js';
import type { CallHolds } from '../queue/hold/call-holds.js';
import { isOutage } from '../queue/hold/outage-state.js';
import type { Kind } from '../kinds/kind.js';
import { RunLedger } from './run-ledger.js';
import { startFlowSampler } from '../ops/flow-metrics.js';
import { messageOf } from '../errors/message-of.js';
import { summarizeRun, type SyncSummary } from './run-summary.js';

/** What the runtime needs of the program's parts (buildDeps makes them from the configuration). */
export interface RuntimeDeps {
  config: Config;
  logger: Logger;
  redis: Redis;
  keys: RedisKeys;
  client: ServiceApi;
  catalog: CatalogApi;
  /** Where pulls read the streams (the HTTP feed, a store, or both); `serves` names the streams it has. */
  upstream?: FeedSource;
  queues: QueueSet;
  /** The kinds of job, one per stream: the list every part of the engine takes (jobs/kinds.ts, or a test's). */
  kinds: readonly Kind[];
  /** The budgets' rate and the service's latency, when jobs at once follow them (buildDeps makes it). */
  pace?: Pace;
  /** Set when tracing is on: BullMQ's telemetry for the workers, and the spans of each job. */
  tracing?: Pick<Tracing, 'telemetry' | 'jobs'>;
  /** The process's holds of the service's calls, its catalog's reads included (buildDeps makes them). */
  callHolds?: CallHolds;
  /** A dry run's parts (buildDeps' `dryRun`): they only read, and no worker may start over them. */
  dryRun?: boolean;
}

export type RunProgress =
  | { phase: 'pulled'; stream: StreamName; result: PullResult }
  | { phase: 'imported'; stream: StreamName; progress: ImportProgress }
  | { phase: 'processing'; pending: Record<string, number> };

export type { StreamSummary, SyncSummary } from './run-summary.js';

export interface RunOptions {
  /** The kinds whose jobs this run works (a subset of the deps' list, or test kinds of its streams). */
  kinds: readonly Kind[];
  onProgress?: (p: RunProgress) => void;
  signal?: AbortSignal;
  /** Jobs at once per queue, fixed. Default: WORKER_CONCURRENCY when set, else sized from d.pace (concurrency-sizer.ts). */
  concurrency?: number;
  /** How often idleness is checked, in ms. Default 200. */
  pollMs?: number;
  /** Extra worker settings (tests: lock and stall timings). */
  workers?: Pick<StartWorkersOptions, 'lockDurationMs' | 'stalledIntervalMs' | 'processor' | 'retry' | 'breaker' | 'outage'>;
}

function runnerDeps(d: RuntimeDeps): RunnerDeps {
  return {
    client: d.client,
    catalog: d.catalog,
    redis: d.redis,
    keys: d.keys,
    logger: d.logger,
    jobs: d.config.jobs,
    goLive: d.config.goLive,
    jobTracing: d.tracing?.jobs,
    ...(d.callHolds ? { callHolds: d.callHolds } : {}),
  };
}

export function kindsFor(kinds: readonly Kind[], streams: StreamName[]): Kind[] {
  return streams.map((s) => {
    const kind = kinds.find((k) => k.stream === s);
    if (!kind) throw new Error(`no job kind handles stream ${s}`);
    return kind;
  });
}

/**
 * Workers for these kinds, sized from the budgets. `oneShot`: a command that lists every failure in its summary
 * (its workers log a record's failure as info: ProcessorOptions.listsFailures).
 */
export function workersFor(
  d: RuntimeDeps,
  kinds: readonly Kind[],
  o: Omit<RunOptions, 'kinds'>,
  how: { oneShot?: boolean; watch?: StartWorkersOptions['watch'] } = {},
): Promise<WorkerPool> {
  // Workers would take the jobs already queued: a dry run plans them (src/app/dry-run.ts) and works none.
  if (d.dryRun) return Promise.reject(new Error('internal error: a dry run started workers; a dry run works no job'));
  const fixed = o.concurrency ?? d.config.concurrency.fixed;
  const pace = fixed === undefined ? d.pace : undefined;
  const bounds = { min: d.config.concurrency.min, max: d.config.concurrency.max };
  return startWorkers({
    kinds: [...kinds],
    connection: d.config.redis,
    prefix: d.config.redis.prefix,
    deps: runnerDeps(d),
    concurrency:
      fixed ??
      (pace ? sizeConcurrency(pace.ratePerSecond(), pace.latencyMs() ?? defaults.assumedLatencyMs, bounds) : d.config.jobs.concurrency),
    ...(pace ? { sizing: { pace, bounds } } : {}),
    logger: d.logger,
    badRecords: { keep: d.config.retention.badRecordsKeep, keepDays: d.config.retention.badRecordsKeepDays },
    breaker: { threshold: d.config.breaker.threshold },
    // The service down for everything: every stream holds, one read probes it, and work goes on when it answers.
    outage: { probe: () => probeOnce(d.client), probeMaxMs: d.config.outage.probeMaxMs },
    telemetry: d.tracing?.telemetry,
    // JOB_LOCK_SECONDS: a job of a process that died is taken up again (its locks expired, found stalled) within about twice this.
    lockDurationMs: d.config.jobLockMs,
    stalledIntervalMs: d.config.jobLockMs,
    processor: { leaseMs: d.config.jobLockMs, lateWriteMs: d.config.lateWriteMs, ...(how.oneShot ? { listsFailures: true } : {}) },
    // What the service lacks is waited for (src/queue/wait/), unless the run ends with its jobs or WAIT_FOR_REFERENCE_HOURS=0.
    ...(how.oneShot || !d.config.waits.boundMs ? {} : { waits: { lookMs: d.config.waits.lookMs, boundMs: d.config.waits.boundMs } }),
    ...(how.watch ? { watch: how.watch } : {}),
    ...o.workers,
  });
}

export interface Runtime {
  workers: WorkerPool;
  control?: Control;
  /** Stops the schedulers and the workers together (active jobs get graceMs to finish). */
  close(graceMs: number): Promise<void>;
}

/** The `worker` command: workers for the kinds, and the scheduled pulls when asked (on `due`, the process's loop, if given). */
export async function startRuntime(d: RuntimeDeps, o: RunOptions & { withSchedulers: boolean; due?: DueLoop }): Promise<Runtime> {
  if (o.withSchedulers && !d.upstream) throw new Error('UPSTREAM_URL: is required to pull the feed');
  const workers = await workersFor(d, o.kinds, o);
  let control: Control | undefined;
  try {
    control = o.withSchedulers ? await startSchedules(d, o.kinds, o.due) : undefined;
  } catch (err) {
    await workers.close(0);
    throw err;
  }
  return {
    workers,
    control,
    async close(graceMs) {
      // Together, so that shutdown takes at most one grace period, not one per part.
      await Promise.all([control?.close(graceMs), workers.close(graceMs)]);
    },
  };
}

/** Resolves once no service outage holds the streams (the workers' probe ends it when the service answers again). */
export async function waitForOutageEnd(d: RuntimeDeps, o: Pick<RunOptions, 'signal' | 'pollMs'>): Promise<void> {
  while (await isOutage(d.redis, d.keys)) {
    o.signal?.throwIfAborted();
    await new Promise((r) => setTimeout(r, Math.max(o.pollMs ?? defaults.drainPollMs, 500)));
  }
}

/** Processes with in-process workers until no job is pending (intake batches included); while the service is down, waits for it. */
async function processUntilIdle(d: RuntimeDeps, streams: StreamName[], o: Omit<RunOptions, 'kinds'>): Promise<void> {
  const queues = streams.map((s) => d.queues.get(s));
  const intakes = streams.map((s) => d.queues.intake(s));
  // Held queues count only their active jobs: while the service is down, the run waits for it to answer again.
  do {
    await waitForOutageEnd(d, o);
    await waitForIdle([...intakes, ...queues], {
      pollMs: o.pollMs,
      signal: o.signal,
      onPoll: (pending) => o.onProgress?.({ phase: 'processing', pending }),
    });
  } while (await isOutage(d.redis, d.keys));
}

/** The streams `sync --once` runs (and its dry run plans): those asked for, else each one its sources serve. */
export function syncStreams(d: Pick<RuntimeDeps, 'upstream'>, kinds: readonly Kind[], asked?: StreamName[]): StreamName[] {
  const upstream = d.upstream;
  if (!upstream) throw new Error('UPSTREAM_URL: is required to pull the feed');
  return asked ?? kinds.filter((k) => upstream.serves?.(k.stream) ?? true).map((k) => k.stream);
}

/** `sync --once`: pulls each stream until caught up, processes every job until idle, sums up what the run itself did. */
export async function syncOnce(d: RuntimeDeps, o: RunOptions & { streams?: StreamName[]; lockWaitMs?: number }): Promise<SyncSummary> {
  const ledger = new RunLedger();
  const streams = syncStreams(d, o.kinds, o.streams);
  const upstream = d.upstream!;
  const pool = await workersFor(d, kindsFor(o.kinds, streams), o, { oneShot: true, watch: ledger.watchers() });
  const sampler = runSampler(d);
  try {
    const pulled = new Map<StreamName, PullResult>();
    for (const stream of streams) {
      const kind = kindOf(d.kinds, stream);
      // While the service is down nothing is pulled: the run waits for it to answer (its workers probe it).
      await waitForOutageEnd(d, o);
      await kind.feed.beforePull?.({ redis: d.redis, keys: d.keys });
      const result = await pullStream({
        kind,
        upstream,
        queue: d.queues.get(stream),
        redis: d.redis,
        keys: d.keys,
        pageSize: d.config.jobs.feedPageSize,
        logger: d.logger,
        signal: o.signal,
        // A `worker` process may be polling the same stream; wait for its pull to end.
        lockWaitMs: o.lockWaitMs ?? defaults.pullLockWaitMs,
        onRecords: (ids) => ledger.noteRecords(stream, ids),
      });
      pulled.set(stream, result);
      o.onProgress?.({ phase: 'pulled', stream, result });
    }
    await processUntilIdle(d, streams, o);
    return await summarizeRun(d, ledger, pulled);
  } finally {
    await pool.close(d.config.shutdownGraceSeconds * 1000);
    await sampler.stop();
  }
}

/** `import <stream> <file>`: queues the file's records and, with `process`, works them off as `sync --once` does. */
export async function importAndMaybeProcess(
  d: RuntimeDeps,
  o: RunOptions & { stream: StreamName; source: string | Readable; process: boolean; stdin?: Readable; batchSize?: number } & ReadAs,
): Promise<{ imported: ImportResult; summary?: SyncSummary }> {
  const ledger = new RunLedger();
  const [kind] = o.process ? kindsFor(o.kinds, [o.stream]) : [];
  // Workers start first so processing overlaps the import.
  const pool = kind ? await workersFor(d, [kind], o, { oneShot: true, watch: ledger.watchers() }) : undefined;
  const sampler = pool ? runSampler(d) : undefined;
  try {
    const imported = await importNdjson({
      kind: kindOf(d.kinds, o.stream),
      source: o.source,
      queues: d.queues,
      redis: d.redis,
      logger: d.logger,
      batchSize: o.batchSize,
      maxLineBytes: d.config.limits.maxRecordBytes,
      stdin: o.stdin,
      signal: o.signal,
      onProgress: (progress) => o.onProgress?.({ phase: 'imported', stream: o.stream, progress }),
      onRecords: (ids) => ledger.noteRecords(o.stream, ids),
      onBatch: (id) => ledger.noteBatch(o.stream, id),
      format: o.format,
      transform: o.transform,
    });
    if (!pool) return { imported };
    await processUntilIdle(d, [o.stream], o);
    return { imported, summary: await summarizeRun(d, ledger, new Map([[o.stream, imported]])) };
  } finally {
    await pool?.close(d.config.shutdownGraceSeconds * 1000);
    await sampler?.stop();
  }
}

/**
 * The dashboard's chart samples while a one-shot run spends the budget, and once more at its end: its requests are
 * counted in the minutes they went out, whether or not a worker or a dashboard ran then (src/ops/flow-metrics.ts).
 */
function runSampler(d: RuntimeDeps): { stop(): Promise<void> } {
  return startFlowSampler(
    d.redis,
    d.config.redis.prefix,
    d.kinds.map((k) => k.stream),
    defaults.flowSampleSeconds * 1000,
    (err) => d.logger.debug({ err: messageOf(err) }, 'flow sample not written (Redis?)'),
    { lastSample: true },
  );
}
