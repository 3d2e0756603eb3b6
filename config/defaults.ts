/** Every default of the program (the budgets' in config/budget-defaults.ts). Environment variable names are in config/schema.ts. */
import { budgetDefaults } from './budget-defaults.js';
import { accountsViewDefaults, dispatchDefaults } from './accounts-defaults.js';

export const defaults = {
  /** The request budgets and how the program shares them (config/budget-defaults.ts). */
  ...budgetDefaults,
  /** How `status` and the dashboard show many accounts (config/accounts-defaults.ts). */
  ...accountsViewDefaults,
  ...dispatchDefaults,
  /** Time-out of a single-entity call, in ms. */
  entityTimeoutMs: 15_000,
  /** How long after a lost answer the service may still apply a create (held behind a gateway), in ms: LATE_WRITE_MS. */
  lateWriteMs: 60_000,
  /** Time-out of a collection GET, in ms: large accounts take tens of seconds. */
  collectionTimeoutMs: 120_000,
  /** Retries of a read inside the client before the error reaches the job. */
  readRetries: 3,
  /** First delay between two tries of a read in the client, in ms; doubles each try, jittered ×1–2. */
  readRetryMinDelayMs: 250,
  /** Keep-alive connections the client holds open to the service. */
  serviceConnections: 32,
  /** Redis URL. */
  redisUrl: 'redis://127.0.0.1:6379',
  /** Prefix of every Redis key the program writes. */
  queuePrefix: 'isync',
  /** Records asked of the feed per page. */
  feedPageSize: 500,
  /** Largest record, in bytes, in a feed page or as one NDJSON line; a larger one fails alone as a bad record. */
  maxRecordBytes: 4 * 1024 * 1024,
  /** Most bytes of records held from one feed page; past it the page is asked again with half the limit. */
  feedMaxPageBytes: 64 * 1024 * 1024,
  /** Largest answer body of the service, in bytes (a large account's catalogue is tens of MB). */
  maxResponseBytes: 128 * 1024 * 1024,
  /** Deepest nesting of arrays and objects in a record (feed records are 3 levels deep); deeper fails alone. */
  maxRecordDepth: 32,
  /** Failed bad-record jobs kept per stream (newest first); older ones are removed. Other failed jobs are kept. */
  badRecordsKeep: 10_000,
  /** Days a failed bad-record job is kept (a re-delivery after that is a new job that fails again). */
  badRecordsKeepDays: 30,
  /** Log lines (one per attempt) kept per job. */
  jobKeepLogs: 50,
  /** Error stacks BullMQ keeps per job (the newest; each attempt's trace is in its log line). */
  jobKeepStackTraces: 3,
  /** Attempts of a job before it fails (transient errors only; 429s consume none). */
  jobAttempts: 12,
  /** First retry delay in ms; doubles each attempt, with jitter, capped by retryMaxDelayMs. */
  retryBaseDelayMs: 2_000,
  /** Longest delay between two attempts, in ms (12 attempts span a bit over an hour). */
  retryMaxDelayMs: 10 * 60_000,
  /**
   * Refusals about the account (401, a 403 that is not "the order is completed", the same service refusal again) met
   * by a stream's jobs in a row, across every process, that pause the stream (BREAKER_THRESHOLD). The service down
   * holds every stream instead (outageThreshold below) and ends by itself.
   */
  breakerThreshold: 10,
  /**
   * The service down (5xx, refused or reset connections, time-outs) met by one named call's requests in a row, across
   * every process of the prefix, that hold that call (src/queue/hold/call-hold.ts): the jobs whose next step is it wait
   * there without spending attempts, everything else goes on, and one real request of it is tried at growing intervals.
   */
  outageThreshold: 3,
  /**
   * First and longest delay between two trials of a held call, or two probes of a service down for everything, in ms
   * (the delay doubles: 2, 4, 8, 16, then 30 s; OUTAGE_PROBE_MAX_SECONDS).
   */
  outageProbeFirstMs: 2_000,
  outageProbeMaxMs: 30_000,
  /** How long a held call's trial keeps the others back before another may go (its answer lost with its process), in ms. */
  callTrialLifeMs: 30_000,
  /** How old a process's view of the held calls may be when a request of a job asks it, in ms (one HGETALL at most this often). */
  callHoldViewMs: 1_000,
  /** How often each worker process looks at the outage state while it holds its queues for one (to let them go), in ms. */
  outageLookMs: 1_000,
  /**
   * ... and while it holds none, in ms: a job that meets the service down during an outage holds its process's queues
   * at once, so this look is only for a process whose jobs meet nothing (issue 36: one HMGET a second per account).
   */
  outageIdleLookMs: 5_000,
  /** An outage lasting this long is alerted (OUTAGE_ALERT_SECONDS); its end is then alerted too. */
  outageAlertSeconds: 180,
  /**
   * How old a missed scheduled pull may be and still be made up once (SCHEDULE_CATCH_UP_SECONDS): 16 hours covers a
   * night, so a worker stopped over 19:00 and started in the morning makes up the evening's stock counts.
   */
  scheduleCatchUpSeconds: 16 * 3600,
  /** How soon a scheduled pull that did not fetch (held, failed) is looked at again to be made up, in ms (src/feed/make-up.ts). */
  makeUpLookMs: 10_000,
  /** The longest a worker process's due loop sleeps between looks at the due set, in ms (src/feed/due-loop.ts). */
  dueLoopSleepMs: 1_000,
  /** The shortest time between two looks of a worker process's due loop, in ms: the members due meanwhile are claimed in one script. */
  dueLoopGapMs: 250,
  /** Scheduled pulls one worker process runs at once, over every account (src/feed/due-loop.ts). */
  duePullsAtOnce: 32,
  /**
   * Jobs one worker process runs at once, per queue, before anything is measured (WORKER_CONCURRENCY, when set, fixes
   * it; otherwise it follows the budget's rate and the service's latency between the two bounds below).
   */
  workerConcurrency: 16,
  /** Most and least jobs at once per queue while concurrency follows the rate (WORKER_CONCURRENCY_MAX; the least is fixed). */
  workerConcurrencyMax: 256,
  workerConcurrencyMin: 8,
  /** Minimum seconds between two catalog refreshes caused by a miss. */
  catalogRefreshSeconds: 300,
  /** CATALOG_CACHE_MB: the process's catalogs held in memory together, estimated MB; past it the least recently used go. */
  catalogCacheMb: 256,
  /** CATALOG_IDLE_SECONDS: a catalog unused this long leaves memory (Redis keeps its copy; the next use reads it). */
  catalogIdleSeconds: 600,
  /**
   * While a record waits for a product or facility the service lacks (src/queue/wait/), the catalog is read again this
   * often (WAIT_LOOK_SECONDS): two collection GETs a look, 144 an hour at 50 s, about half of the default 300 an hour,
   * and none while nothing waits. A reference added is found within this long.
   */
  waitLookSeconds: 50,
  /** How long a record waits for a missing reference before it fails for good (WAIT_FOR_REFERENCE_HOURS; 0: no wait). */
  waitForReferenceHours: 72,
  /** A record waiting this long for a reference is alerted (WAIT_ALERT_HOURS), once per reference. */
  waitAlertHours: 4,
  /** Seconds an order's progress stays in Redis after its first write (the service stays the truth). */
  orderProgressTtlSeconds: 30 * 24 * 3600,
  /** Largest number of items in one inventory variance; larger counts are split. */
  varianceChunkSize: 500,
  /** Seconds one on-hand snapshot serves the counts of a stock sync run (one inventory read per run). */
  stockSnapshotMaxAgeSeconds: 600,
  /** Life of the per-location lock of the stock sync in ms; renewed every third of it while held. */
  stockLocationLockMs: 15_000,
  /** Where `worker` serves /metrics, /healthz and /readyz; 0 turns it off. */
  workerHttpPort: 9464,
  /** Host of the worker's HTTP endpoints. */
  workerHttpHost: '127.0.0.1',
  /**
   * With ACCOUNTS_FILE, the accounts whose own series the worker's /metrics always shows (METRICS_ACCOUNTS): none
   * beyond those in trouble (docs/monitoring.md, "Many accounts"); `*` for every one.
   */
  metricsAccounts: '',
  /** Host the push receiver binds (INGEST_HOST): loopback, behind a TLS proxy. */
  ingestHost: '127.0.0.1',
  /** Largest body of one push, in bytes (INGEST_MAX_BODY_BYTES); a larger one is answered 413 without being read further. */
  ingestMaxBodyBytes: 8 * 1024 * 1024,
  /** Pushes one sender address may make a second (INGEST_RATE_PER_SECOND); past it they are answered 429. */
  ingestRatePerSecond: 2_000,
  /** Jobs waiting in a stream past which pushes to it are answered 503 (INGEST_MAX_BACKLOG), so Redis does not fill. */
  ingestMaxBacklog: 200_000,
  /** How far a push's webhook-timestamp may be from now, in seconds, either way (Standard Webhooks' tolerance). */
  ingestToleranceSeconds: 300,
  /** How long a delivery id (webhook-id) is remembered, in seconds: the same id again within it queues nothing. */
  ingestSeenSeconds: 24 * 3600,
  /** How long a push's backlog count is reused before it is asked of Redis again, in ms. */
  ingestBacklogCacheMs: 1_000,
  /** Least time between two looks at INGEST_SECRET_FILE and INGEST_HMAC_SECRET_FILE (read again when changed), in ms. */
  ingestSecretRecheckMs: 1_000,
  /** Longest wait for Redis to store a push before it is answered 503, in ms. */
  ingestStoreTimeoutMs: 5_000,
  /** Seconds a sender is told to wait (Retry-After) when Redis cannot store a push now. */
  ingestRetryAfterSeconds: 5,
  /** Seconds active jobs get to finish after SIGTERM/SIGINT. */
  shutdownGraceSeconds: 30,
  /** How often `worker` looks whether ACCOUNTS_FILE changed, in seconds. */
  accountsReloadSeconds: 5,
  /** Dashboard host and port. */
  dashboardHost: '127.0.0.1',
  dashboardPort: 3000,
  /** The dashboard's sessions and login limits (src/dashboard/auth.ts DashboardLimits); startDashboard's `limits` overrides them. */
  dashboard: {
    /** Life of a session from its login, and how long an unused one lasts, in ms. */
    sessionTtlMs: 12 * 3600_000,
    sessionIdleMs: 2 * 3600_000,
    /** Sessions held at once; past it the oldest ends. */
    maxSessions: 1_000,
    /** Login attempts one client address, and all together, may make per window (a successful one is given back). */
    loginAttemptsPerClient: 5,
    loginAttemptsOverall: 30,
    loginWindowMs: 60_000,
    /** Pause before a wrong login answers, in ms. */
    failedLoginPauseMs: 300,
  },
  /** Shortest DASHBOARD_PASSWORD accepted on a host other machines can reach. */
  dashboardMinPasswordLength: 12,
  /** An alert is sent when a stream's feed has been behind longer than this, in seconds. */
  alertLagSeconds: 600,
  /** At most one alert per reason (a stream's new failures, its lag) in this many seconds. */
  alertIntervalSeconds: 900,
  /**
   * How often `worker` looks at streams paused for 401 whose credentials come from files (INVENTORY_API_KEY_FILE,
   * INVENTORY_API_SECRET_FILE), to resume them by itself once the files changed and the service takes them, in ms.
   */
  credentialCheckMs: 3_000,
  /** How often `worker` looks for reasons to alert, in seconds (ALERT_CHECK_SECONDS). */
  alertCheckSeconds: 30,
  /** An alert is sent when Redis has refused writes (full, read-only) or been away this long, in seconds. */
  alertRedisRefusedSeconds: 60,
  /** How often `worker` checks with a write that Redis takes writes, in ms. */
  redisWriteProbeMs: 2_000,
  /** How long `worker`, `dashboard` and `receive` wait at start for a Redis that does not answer, in seconds. */
  redisStartWaitSeconds: 60,
  /** How often a command waiting for Redis at start says so, in ms. */
  redisWaitLogMs: 5_000,
  /** How often `worker` samples feed lag and budget use for the dashboard's charts, in seconds. */
  flowSampleSeconds: 15,
  /** How long the chart samples and BullMQ's per-minute job counts are kept, in minutes (2 days). */
  flowKeepMinutes: 2 * 24 * 60,
  /** pino level of `worker`, `receive`, `dashboard` and of LOG_FILE. */
  logLevel: 'info',
  /** Level a one-shot command (import, sync, status, ...) writes on stderr without --verbose or LOG_LEVEL: warnings and errors only. */
  commandStderrLevel: 'warn',
  /** Requests a minute per class the demo's client allows itself (its sandbox has no limits; 120 would make it take minutes). */
  demoRequestsPerMinute: 3000,
  /** Seconds between catalog refreshes after a miss in the demo, so a product added to the sandbox is found on retry. */
  demoCatalogRefreshSeconds: 2,

  // Internals: not settings, but each in one place.
  /** Latency assumed before the first answer is timed, in ms (sizes the first concurrency). */
  assumedLatencyMs: 200,
  /** How often the workers' concurrency is sized again from the rate and the latency, in ms. */
  concurrencySizeMs: 2_000,
  /** How long a process waits for another one's catalog fetch before fetching itself, in ms. */
  catalogPeerWaitMs: 150_000,
  /** Minutes of history the dashboard's charts show unless asked for another span. */
  flowChartMinutes: 180,
  /** How often `sync --once` looks whether its queues are drained, in ms. */
  drainPollMs: 200,
  /**
   * BullMQ's lock on a running job, in ms (renewed while it runs), and how often stalled jobs are looked for; the
   * program's workers take all three from JOB_LOCK_SECONDS, whose default is jobLockMs.
   */
  jobLockMs: 30_000,
  stalledCheckMs: 30_000,
  /**
   * How long an idle BullMQ worker's blocking wait for a job lasts before it asks again, in seconds (BullMQ's
   * drainDelay, 5 by default). The wait ends at once when a job is added, a delayed job or retry falls due, or the
   * queue is resumed (BullMQ wakes it through the queue's marker key), so this only sets how often an idle queue is
   * asked: 6 workers an account at 5 s were a third of an idle account's Redis commands (issue 36). Kept well under
   * the idle timeouts of load balancers and NATs (4 min and more) that could drop a silent connection.
   */
  workerDrainSeconds: 60,
  /** Life of a running job's lease on its record, in ms (renewed while it runs): the workers take JOB_LOCK_SECONDS. */
  keyLockTtlMs: 30_000,
  /** How long a job whose business key is busy waits before it is tried again, in ms (plus as much jitter). */
  keyBusyDelayMs: 500,
  /**
   * First delay before a job refused about the account runs again while its stream is not paused, in ms;
   * doubles each time, capped below.
   */
  breakerRetryDelayMs: 1_000,
  breakerRetryMaxDelayMs: 60_000,
  /** How soon a job refused while its stream is paused is due again, in ms (it waits in the paused queue until resumed). */
  breakerHoldMs: 1_000,
  /** How long a queue is held after a 429 that gives no reset time, in ms. */
  rateLimitHoldMs: 5_000,
  /** Life of the lock that lets one process pull a stream at a time, in ms, and how long `sync` waits for it. */
  pullLockTtlMs: 60_000,
  pullLockWaitMs: 60_000,
  /** Records and characters of one import batch (an intake job). */
  importBatchRecords: 1_000,
  importBatchChars: 4 * 1024 * 1024,
  /** Transforms per stream (TRANSFORMS): none, every record arrives in its stream's own shape (docs/transforms.md). */
  transforms: '',
  /** Characters of a transform's error kept in a bad record's reason. */
  transformReasonChars: 500,
  /** Characters of a CSV cell quoted in an error about it. */
  csvQuoteChars: 40,
  /** How long a command waits for Redis to answer at start, in ms. */
  redisConnectTimeoutMs: 3_000,
  /** How long a private Redis server (demo, tests) may take to start, in ms. */
  redisStartTimeoutMs: 15_000,
  /** The Shopify Admin API version the store source asks (SHOPIFY_API_VERSION): one Shopify supports (docs/shopify.md). */
  shopifyApiVersion: '2025-10',
  /** With pushes on, seconds between the store pulls that look for what no webhook brought (SHOPIFY_POLL_SECONDS). */
  shopifyPollSeconds: 300,
  /** How far before its cursor each store pull reads again (SHOPIFY_LOOKBACK_SECONDS): an update can show late. */
  shopifyLookBackSeconds: 120,
  /** A snapshot the pull finds first counts as "no webhook brought it" once it is older than this, in seconds. */
  shopifyWebhookGraceSeconds: 60,
  /** Found by the pull in the last hour, past which `worker` alerts that the webhooks seem to be lost. */
  shopifyMissedAlert: 5,
  /** Time-out of one feed page request, in ms, and the delays between its retries. */
  feedTimeoutMs: 30_000,
  feedRetryMinDelayMs: 500,
  feedRetryMaxDelayMs: 5_000,
  /** How long a stock count waits for its location's lock (or another job's snapshot read), in ms. */
  stockLockWaitMs: 120_000,
  /** Defaults of the Redis lock helper (src/redis/redis-lock.ts): longest wait and poll interval, in ms. */
  lockWaitMs: 60_000,
  lockPollMs: 50,
} as const;
