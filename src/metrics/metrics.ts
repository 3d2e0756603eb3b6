import type { Job, Worker } from 'bullmq';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ApiCall } from '../client/service-api.js';
import type { WriteState } from '../queue/hold/write-probe.js';
import { holdGauges, type HoldSource } from './hold-gauges.js';
import { waitGauges, type WaitSource } from './wait-gauges.js';

/** What the metrics read at scrape time (Redis state shared by every process). */
export interface ScrapeSources {
  /** Jobs per stream and state (waiting, active, delayed, failed, completed, ...). */
  queueCounts(): Promise<Array<{ stream: string; state: string; count: number }>>;
  /** Import batches (intake jobs: records not yet jobs) per stream and state (waiting, active, delayed, failed). */
  intakeCounts(): Promise<Array<{ stream: string; state: string; count: number }>>;
  /** Seconds each stream's feed is behind (since it last caught up), when known. */
  feedLag(): Promise<Array<{ stream: string; seconds: number }>>;
  /** A store source's order changes its pull found in the last hour that no webhook brought, per stream. */
  foundByPull?(): Promise<Array<{ stream: string; count: number }>>;
  /**
   * Seconds each stream has been falling behind as the webhook's lag alert judges it (src/ops/feed-lag.ts): a polled
   * stream since it was last caught up; a scheduled one (a daily cron) only while its latest pull failed or did not
   * catch up, else 0.
   */
  feedLagging?(): Promise<Array<{ stream: string; seconds: number }>>;
  /** Every hold (src/queue/hold/): each stream's refusals (paused or not, in a row), the service down (since when). */
  holds?: HoldSource;
  /** Each budget lane: its configured rate, the rate the program allows itself now (its share), and why. */
  budgetShares?(): Promise<Array<{ lane: string; configuredPerMinute: number; effectivePerMinute: number; reason: string }>>;
  /** The records that wait for a missing reference (src/queue/wait/): per stream, the groups, the oldest wait. */
  waits?(): Promise<WaitSource>;
  /** Redis's memory now: what it uses and its maxmemory (0: none set); on a cluster, the fullest master's. */
  redisMemory?(): Promise<{ usedBytes: number; maxBytes: number }>;
}

export interface Metrics {
  registry: Registry;
  /** The service client's onCall hook. */
  onCall(call: ApiCall): void;
  /** Counts a finished attempt. `outcome` is synced/unchanged/skipped, `failed` (final) or `retry`. */
  jobFinished(stream: string, outcome: string, seconds: number): void;
  /** Counts every attempt a BullMQ worker finishes. */
  watchWorker(worker: Worker, stream: string): void;
  /** Shows this process's hold for Redis refusing writes (a process that probes them: `worker`). */
  watchRedisWrites(read: () => WriteState): void;
}

/** What isync_jobs_total counts an attempt as (docs/monitoring.md). */
const JOB_OUTCOMES = ['synced', 'unchanged', 'skipped', 'retry', 'failed'] as const;
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

type Registers = Registry[];
type Sources = ScrapeSources | undefined;

/** A fresh registry per process (and per test) with the program's metrics; names are in docs/monitoring.md. */
export function createMetrics(o: { sources?: ScrapeSources; defaultMetrics?: boolean; labels?: Record<string, string> } = {}): Metrics {
  const registry = new Registry();
  // Labels on every series of this registry (one account of several: `account`).
  if (o.labels) registry.setDefaultLabels(o.labels);
  if (o.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  // Created in this order, the order a scrape lists them in.
  const { jobs, jobSeconds } = jobMetrics(registers);
  const { calls, callSeconds, budgetWait, rateLimited } = callMetrics(registers);
  queueGauges(registers, o.sources);
  const holds = holdGauges(registers, o.sources?.holds);
  budgetShareGauges(registers, o.sources);
  redisMemoryGauges(registers, o.sources);
  waitGauges(registers, o.sources?.waits?.bind(o.sources));

  const jobFinished = (stream: string, outcome: string, seconds: number) => {
    jobs.inc({ stream, outcome });
    jobSeconds.observe({ stream, outcome }, seconds);
  };

  return {
    registry,
    onCall(call) {
      calls.inc({ class: call.cls, status: call.status === null ? 'none' : String(call.status) });
      callSeconds.observe({ class: call.cls }, call.ms / 1000);
      budgetWait.observe({ class: call.cls }, call.waitedMs / 1000);
      if (call.status === 429) rateLimited.inc({ class: call.cls });
    },
    jobFinished,
    watchRedisWrites: holds.watchRedisWrites,
    watchWorker(worker, stream) {
      // Every outcome's series from the start, at 0: a rule's increase() sees the first failure (a series born at 1 has none).
      for (const outcome of JOB_OUTCOMES) jobs.inc({ stream, outcome }, 0);
      const took = (job: Job) => Math.max(0, ((job.finishedOn ?? Date.now()) - (job.processedOn ?? Date.now())) / 1000);
      worker.on('completed', (job: Job) => {
        const outcome = (job.returnvalue as { outcome?: unknown } | undefined)?.outcome;
        jobFinished(stream, typeof outcome === 'string' ? outcome : 'synced', took(job));
      });
      worker.on('failed', (job: Job | undefined, err: Error) => {
        if (!job) return;
        const final = err.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
        jobFinished(stream, final ? 'failed' : 'retry', took(job));
      });
    },
  };
}

/** Job attempts: counted and timed by stream and outcome. */
function jobMetrics(registers: Registers) {
  const jobs = new Counter({
    name: 'isync_jobs_total',
    help: 'Job attempts finished, by stream and outcome (synced, unchanged, skipped, retry, failed).',
    labelNames: ['stream', 'outcome'],
    registers,
  });
  const jobSeconds = new Histogram({
    name: 'isync_job_duration_seconds',
    help: 'Time one job attempt took.',
    labelNames: ['stream', 'outcome'],
    buckets: JOB_BUCKETS,
    registers,
  });
  return { jobs, jobSeconds };
}

/** Requests to the service: counted by class and status, timed on the wire and in the budget's wait, 429s. */
function callMetrics(registers: Registers) {
  const calls = new Counter({
    name: 'isync_api_calls_total',
    help: 'Requests to the service, by request class (get, post, collection) and HTTP status ("none" when no answer came).',
    labelNames: ['class', 'status'],
    registers,
  });
  const callSeconds = new Histogram({
    name: 'isync_api_call_duration_seconds',
    help: 'Time on the wire of one service request.',
    labelNames: ['class'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const budgetWait = new Histogram({
    name: 'isync_budget_wait_seconds',
    help: 'Time a request waited for the request budget before it was sent.',
    labelNames: ['class'],
    buckets: [0, 0.01, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 300],
    registers,
  });
  const rateLimited = new Counter({
    name: 'isync_rate_limited_total',
    help: 'Answers 429 (over budget) from the service, by request class.',
    labelNames: ['class'],
    registers,
  });
  return { calls, callSeconds, budgetWait, rateLimited };
}

/** Read at scrape time: jobs and import batches per stream and state, and how far behind each feed is. */
function queueGauges(registers: Registers, sources: Sources) {
  /** A gauge of counts per stream and state, read from Redis at scrape time. */
  const countsGauge = (
    name: string,
    help: string,
    read: (s: ScrapeSources) => Promise<Array<{ stream: string; state: string; count: number }>>,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ['stream', 'state'],
      registers,
      async collect() {
        if (!sources) return;
        this.reset();
        for (const c of await read(sources)) this.set({ stream: c.stream, state: c.state }, c.count);
      },
    });
  const queueJobs = countsGauge('isync_queue_jobs', 'Jobs in each queue by state.', (s) => s.queueCounts());
  // Apart from isync_queue_jobs: a batch holds up to 1,000 records, so summing it with jobs would mislead.
  const intakeBatches = countsGauge(
    'isync_intake_batches',
    'Import batches per stream and state whose records are not jobs yet (a worker turns each into one job per record).',
    (s) => s.intakeCounts(),
  );
  const feedLag = new Gauge({
    name: 'isync_feed_lag_seconds',
    help: 'How far behind each feed stream is: seconds since it last caught up.',
    labelNames: ['stream'],
    registers,
    aggregator: 'max',
    async collect() {
      if (!sources) return;
      this.reset();
      for (const l of await sources.feedLag()) this.set({ stream: l.stream }, l.seconds);
    },
  });
  const foundByPull = new Gauge({
    name: 'isync_store_found_by_pull',
    help: 'Order changes a store pull found in the last hour that no webhook brought (many: the webhooks are lost).',
    labelNames: ['stream'],
    registers,
    async collect() {
      if (!sources?.foundByPull) return;
      this.reset();
      for (const f of await sources.foundByPull()) this.set({ stream: f.stream }, f.count);
    },
  });
  const feedLagging = new Gauge({
    name: 'isync_feed_lagging_seconds',
    help:
      'How long each stream has been falling behind, as the lag alert judges it: a polled stream since it last caught up, ' +
      'a scheduled one (a daily cron) only while its latest pull failed or did not catch up (else 0).',
    labelNames: ['stream'],
    registers,
    aggregator: 'max',
    async collect() {
      if (!sources?.feedLagging) return;
      this.reset();
      for (const l of await sources.feedLagging()) this.set({ stream: l.stream }, l.seconds);
    },
  });
  return { queueJobs, intakeBatches, feedLag, foundByPull, feedLagging };
}

/** Read at scrape time: each budget lane's configured and effective rate, and why the effective one is what it is. */
function budgetShareGauges(registers: Registers, sources: Sources) {
  const shares = (
    name: string,
    help: string,
    labels: string[],
    set: (g: Gauge, b: Awaited<ReturnType<NonNullable<ScrapeSources['budgetShares']>>>[number]) => void,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: labels,
      registers,
      async collect() {
        if (!sources?.budgetShares) return;
        this.reset();
        for (const b of await sources.budgetShares()) set(this, b);
      },
    });
  const configured = shares(
    'isync_budget_configured_per_minute',
    'Requests a minute each budget lane is configured for (an hourly budget divided by 60).',
    ['lane'],
    (g, b) => g.set({ lane: b.lane }, b.configuredPerMinute),
  );
  const effective = shares(
    'isync_budget_effective_per_minute',
    'Requests a minute the program allows itself now on each lane: configured × headroom × its share ' +
      '(lower while another client of the account spends the budget).',
    ['lane'],
    (g, b) => g.set({ lane: b.lane }, b.effectivePerMinute),
  );
  const reason = shares(
    'isync_budget_share_reason',
    "Why each lane's effective rate is what it is " +
      '(1 on the current reason: configured, shared-429, shared-remaining, service-limit, probing, floor, window-remaining, ' +
      'slow-start, remembered).',
    ['lane', 'reason'],
    (g, b) => g.set({ lane: b.lane, reason: b.reason }, 1),
  );
  return { configured, effective, reason };
}

/** Read at scrape time: Redis's memory and its limit, for the alert before Redis fills and refuses writes. */
function redisMemoryGauges(registers: Registers, sources: Sources) {
  let last: { at: number; read: Promise<{ usedBytes: number; maxBytes: number }> } | undefined;
  // One INFO per scrape for both gauges (prom-client collects them one after the other).
  const read = (s: ScrapeSources) => {
    if (!last || Date.now() - last.at > 500) last = { at: Date.now(), read: s.redisMemory!() };
    return last.read;
  };
  const gauge = (name: string, help: string, value: (m: { usedBytes: number; maxBytes: number }) => number) =>
    new Gauge({
      name,
      help,
      registers,
      aggregator: 'max',
      async collect() {
        if (!sources?.redisMemory) return;
        this.set(value(await read(sources)));
      },
    });
  gauge('isync_redis_memory_used_bytes', "Redis's used_memory (INFO memory); on a cluster, the fullest master's.", (m) => m.usedBytes);
  gauge(
    'isync_redis_memory_max_bytes',
    "Redis's maxmemory, the limit past which it refuses writes under noeviction (0: none set); on a cluster, the fullest master's.",
    (m) => m.maxBytes,
  );
}
