import type { z } from 'zod';
import { redisPasswords } from './redis-target.js';
import { problemLine, zodProblems } from '../src/errors/zod-problems.js';
import { defaults } from './defaults.js';
import { loadMapping, type Mapping } from './mapping-file.js';
import { redisConfigOf, type RedisConfig } from './redis-config.js';
import { kindSettingsOf, kindsSchema, type SettingsOfKind } from './kind-setting.js';
import { envSchema, type Env, type SecretSetting } from './schema.js';
import { readSecretFiles } from './secret-files.js';
import { tracingConfig } from './tracing-config.js';
import { serviceOf, shopifyOf } from './service-config.js';
import { secretList } from './webhook-secrets.js';
import { parseTransforms, type TransformSetting } from './transforms-setting.js';

export type { RedisConfig };

/** The program's configuration: inferred from the checked environment (config/schema.ts) by configOf below. */
export type Config = ReturnType<typeof configOf> & {
  /** Per stream, the transform from the upstream's own shape (TRANSFORMS), in the order given. Default: none. */
  transforms?: TransformSetting[];
  /** LOG_LEVEL was set: a one-shot command writes that level on stderr too, not only warnings (src/app/command-context.ts). */
  logLevelGiven?: boolean;
  /** The account of ACCOUNTS_FILE this configuration is (config/accounts.ts); absent: the environment's one account, `default`. */
  accountName?: string;
};
/** Where and how to reach the service. */
export type ServiceConfig = NonNullable<Config['service']>;
/** Budgets of one account, shared by all its processes (requestsPerMinute: one total beside the three classes). */
export type Budgets = ServiceConfig['budgets'];
export type UpstreamConfig = NonNullable<Config['upstream']>;
export type ShopifyConfig = NonNullable<Config['shopify']>;

/** A go-live floor (a kind's SYNC_*_SINCE setting): records dated before `since` are skipped. */
export interface GoLiveFloor {
  /** YYYY-MM-DD. */
  since: string;
  /** The variable that set it, for the reason operators read. */
  setting: string;
}

/** What a command needs of the configuration, beyond what always has a default. */
export interface ConfigNeeds {
  service?: boolean;
  upstream?: boolean;
}

/** A configuration that cannot run; `problems` has one line per problem, each naming its variable. */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads and checks the configuration from an environment object; throws ConfigError listing every problem.
 * `kinds`: the kinds of job (the composition root's list), whose own settings are read too; none: only the program's.
 * `fromDotenv`: the variables a .env file set (not the environment), which a problem about where a setting came from names.
 */
export function readConfig(
  env: Record<string, string | undefined>,
  needs: ConfigNeeds = {},
  kinds: readonly SettingsOfKind[] = [],
  fromDotenv: ReadonlySet<string> = new Set(),
): Config {
  // Empty strings count as unset, as most tools treat them.
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== '')) as Record<string, string>;
  // Secrets given as files (X_FILE) are read first: the rules below apply to their values as to the environment's.
  const secretFiles = readSecretFiles(given, fromDotenv);
  const cleaned = secretFiles.env;
  const parsed = envSchema.safeParse(cleaned);
  const ownParsed = kindsSchema(kinds).safeParse(cleaned);
  const problems = [
    ...secretFiles.problems,
    ...(parsed.success ? [] : zodProblems(parsed.error.issues).map(problemLine)),
    ...(ownParsed.success ? [] : zodProblems(ownParsed.error.issues).map(problemLine)),
  ];
  const e = parsed.success ? parsed.data : undefined;

  const serviceVars = ['INVENTORY_BASE_URL', 'INVENTORY_ACCOUNT', 'INVENTORY_API_KEY', 'INVENTORY_API_SECRET'] as const;
  const fileForm = (name: string) => (name.includes('_API_') ? `, or ${name}_FILE naming a file that holds it` : '');
  if (needs.service) {
    for (const name of serviceVars) {
      if (!cleaned[name] && !secretFiles.failed.has(name))
        problems.push(`${name}: is required${fileForm(name)} (see README, "Configuration")`);
    }
  }
  if (needs.upstream && !cleaned.UPSTREAM_URL && !cleaned.SHOPIFY_STORE_URL) problems.push('UPSTREAM_URL: is required to pull the feed');
  problems.push(...shopifyProblems(cleaned, secretFiles.failed));
  if (cleaned.INGEST_PORT && !cleaned.INGEST_SECRET && !cleaned.INGEST_HMAC_SECRET && !secretFiles.failed.has('INGEST_SECRET'))
    problems.push('INGEST_SECRET: is required with INGEST_PORT (or INGEST_SECRET_FILE; see docs/push.md)');
  if (e && e.FEED_MAX_PAGE_BYTES < e.MAX_RECORD_BYTES)
    problems.push('FEED_MAX_PAGE_BYTES: must be at least MAX_RECORD_BYTES (a page must hold one record)');
  // The mapping file is read and checked now, so a broken one stops the program before any work.
  const mappingFile = e ? e.MAPPING_FILE : cleaned.MAPPING_FILE?.trim();
  const mapped = mappingFile ? loadMapping(mappingFile) : undefined;
  if (mapped && 'problems' in mapped) problems.push(...mapped.problems.map((p) => withoutSecrets(p, cleaned)));
  const redis = e && redisConfigOf(e);
  if (redis) problems.push(...redis.problems);
  // Its form and files now; its streams and built-in names against the kinds when loaded (src/feed/load-transforms.ts).
  const transforms = parseTransforms(cleaned.TRANSFORMS ?? defaults.transforms);
  problems.push(...transforms.problems);
  if (problems.length > 0 || !e || !redis || !ownParsed.success) throw new ConfigError(problems);
  const own = kindSettingsOf(kinds, ownParsed.data);
  const config = configOf(e, own, redis.redis, mapped && 'mapping' in mapped ? mapped.mapping : undefined, secretFiles.files);
  return { ...config, transforms: transforms.settings, ...(cleaned.LOG_LEVEL ? { logLevelGiven: true } : {}) };
}

/** A store source needs its origin and its token, each without the other useless. */
function shopifyProblems(env: Record<string, string | undefined>, failed: ReadonlySet<string>): string[] {
  const token = env.SHOPIFY_ACCESS_TOKEN || failed.has('SHOPIFY_ACCESS_TOKEN');
  if (env.SHOPIFY_STORE_URL && !token)
    return [
      'SHOPIFY_ACCESS_TOKEN: is required with SHOPIFY_STORE_URL (or SHOPIFY_ACCESS_TOKEN_FILE): the ' +
        "custom app's Admin API access token (docs/shopify.md)",
    ];
  if (!env.SHOPIFY_STORE_URL && env.SHOPIFY_ACCESS_TOKEN)
    return ["SHOPIFY_STORE_URL: is required with SHOPIFY_ACCESS_TOKEN: the store's origin, such as https://my-store.myshopify.com"];
  return [];
}

/** A problem line with any secret of the environment blanked (a mapping file could be a misnamed .env). */
function withoutSecrets(line: string, env: Record<string, string | undefined>): string {
  const secrets = [
    'INVENTORY_API_KEY',
    'INVENTORY_API_SECRET',
    'UPSTREAM_TOKEN',
    'DASHBOARD_PASSWORD',
    'ALERT_WEBHOOK_URL',
    'REDIS_PASSWORD',
    'REDIS_SENTINEL_PASSWORD',
    'INGEST_SECRET',
    'INGEST_HMAC_SECRET',
    'SHOPIFY_ACCESS_TOKEN',
  ].map((n) => env[n]?.trim());
  return secrets.reduce<string>((out, s) => (s ? out.split(s).join('***') : out), line);
}

/** The configuration of a checked environment; the Config type is inferred from it. */
function configOf(
  e: Env,
  own: ReturnType<typeof kindSettingsOf>,
  redis: RedisConfig,
  mapping: Mapping | undefined,
  secretFiles: Partial<Record<SecretSetting, string>> = {},
) {
  return {
    service: serviceOf(e),
    redis,
    upstream: e.UPSTREAM_URL ? { url: e.UPSTREAM_URL, token: e.UPSTREAM_TOKEN } : undefined,
    /** A Shopify store as the source of its stream (SHOPIFY_*; src/sources/shopify/), when set. */
    shopify: shopifyOf(e),
    /** The kinds' own settings (their poll intervals, crons), by key: what each kind's `pull` reads. */
    schedule: own.schedule,
    /** How old a missed scheduled pull may be and still be made up (SCHEDULE_CATCH_UP_SECONDS), in ms (src/feed/missed-runs.ts). */
    catchUpMs: e.SCHEDULE_CATCH_UP_SECONDS * 1000,
    jobs: {
      attempts: e.JOB_ATTEMPTS,
      retryBaseDelayMs: e.RETRY_BASE_DELAY_MS,
      retryMaxDelayMs: e.RETRY_MAX_DELAY_MS,
      /** Jobs at once per queue: WORKER_CONCURRENCY, or the first size before concurrency follows the rate (see `concurrency`). */
      concurrency: e.WORKER_CONCURRENCY ?? (defaults.workerConcurrency as number),
      varianceChunkSize: e.VARIANCE_CHUNK_SIZE,
      feedPageSize: e.FEED_PAGE_SIZE,
    },
    /** How jobs at once are sized: fixed (WORKER_CONCURRENCY set), else from the rate and latency between min and max. */
    concurrency: {
      fixed: e.WORKER_CONCURRENCY,
      max: e.WORKER_CONCURRENCY_MAX,
      min: Math.min(defaults.workerConcurrencyMin, e.WORKER_CONCURRENCY_MAX),
    },
    /** cacheBytes, idleMs: the deployment's bound on its process's catalogs together (src/catalog/catalog-budget.ts). */
    catalog: { refreshSeconds: e.CATALOG_REFRESH_SECONDS, cacheBytes: e.CATALOG_CACHE_MB * 2 ** 20, idleMs: e.CATALOG_IDLE_SECONDS * 1e3 },
    /** Records that name a product or facility the service lacks wait for it (src/queue/wait/). */
    waits: { lookMs: e.WAIT_LOOK_SECONDS * 1000, boundMs: e.WAIT_FOR_REFERENCE_HOURS * 3600_000, alertMs: e.WAIT_ALERT_HOURS * 3600_000 },
    breaker: { threshold: e.BREAKER_THRESHOLD },
    /** The service down for everything: every stream holds and one read probes it (src/queue/hold/: the hold's cause `outage`). */
    outage: { probeMaxMs: e.OUTAGE_PROBE_MAX_SECONDS * 1000, alertSeconds: e.OUTAGE_ALERT_SECONDS },
    limits: { maxRecordBytes: e.MAX_RECORD_BYTES, feedMaxPageBytes: e.FEED_MAX_PAGE_BYTES },
    retention: { badRecordsKeep: e.BAD_RECORDS_KEEP, badRecordsKeepDays: e.BAD_RECORDS_KEEP_DAYS },
    dashboard: { user: e.DASHBOARD_USER, password: e.DASHBOARD_PASSWORD, publicUrl: e.DASHBOARD_PUBLIC_URL },
    /** The worker's endpoints; `metricsAccounts`: the accounts /metrics always shows (METRICS_ACCOUNTS), '*' every one. */
    http: { host: e.WORKER_HTTP_HOST, port: e.WORKER_HTTP_PORT, metricsAccounts: e.METRICS_ACCOUNTS },
    /** The push receiver (src/ingest/): where it listens (no port: none in `worker`), its secrets and its limits. */
    ingest: ingestOf(e),
    alerts: {
      webhookUrl: e.ALERT_WEBHOOK_URL,
      lagSeconds: e.ALERT_LAG_SECONDS,
      intervalSeconds: e.ALERT_INTERVAL_SECONDS,
      redisRefusedSeconds: e.ALERT_REDIS_REFUSED_SECONDS,
      checkSeconds: e.ALERT_CHECK_SECONDS,
    },
    /** How long long-running commands (worker, dashboard, receive) wait at start for a Redis that does not answer. */
    redisStartWaitSeconds: e.REDIS_START_WAIT_SECONDS,
    shutdownGraceSeconds: e.SHUTDOWN_GRACE_SECONDS,
    /** With ACCOUNTS_FILE, how the accounts with work take turns (src/dispatch/); `base`: the deployment's QUEUE_PREFIX. */
    dispatch: dispatchOf(e),
    /** How often `worker` looks whether ACCOUNTS_FILE changed (config/accounts.ts's accountsFileStamp), in seconds. */
    accountsReloadSeconds: e.ACCOUNTS_RELOAD_SECONDS,
    /** Life of a running job's locks (BullMQ's, the record key's) and the stalled check's interval, in ms. */
    jobLockMs: e.JOB_LOCK_SECONDS * 1000,
    /** How long after a lost answer the service may still apply a create, in ms (src/queue/settle-later.ts). */
    lateWriteMs: e.LATE_WRITE_MS,
    logLevel: e.LOG_LEVEL,
    /** Where a one-shot command writes its log records (JSON lines, appended), when set. */
    logFile: e.LOG_FILE,
    /** Per go-live variable (SYNC_*_SINCE), the date before which records are skipped ("before go-live"). */
    goLive: own.goLive,
    /** Upstream productIds and facility names the service knows by others (MAPPING_FILE), checked at start. */
    mapping,
    tracing: tracingConfig(e),
    /**
     * The file each secret setting was read from (X_FILE), by setting: the service's key and secret and the upstream
     * token are read again on a 401 (rotation without a restart); the others only at start.
     */
    secretFiles,
  };
}

/** The push receiver's settings (INGEST_*): configOf's `ingest`. */
function ingestOf(e: Env) {
  return {
    port: e.INGEST_PORT,
    host: e.INGEST_HOST,
    secret: e.INGEST_SECRET,
    hmacSecret: e.INGEST_HMAC_SECRET,
    /** The receiver's public origin (INGEST_PUBLIC_URL), where `check --register-webhooks` points the store's webhooks. */
    publicUrl: e.INGEST_PUBLIC_URL,
    maxBodyBytes: e.INGEST_MAX_BODY_BYTES,
    ratePerSecond: e.INGEST_RATE_PER_SECOND,
    maxBacklog: e.INGEST_MAX_BACKLOG,
  };
}

/** The values that must never reach a log line, Redis, job data or the dashboard. */
export function secretsOf(config: Config): string[] {
  return [
    config.service?.apiKey,
    config.service?.apiSecret,
    config.upstream?.token,
    config.shopify?.token,
    config.dashboard.password,
    config.alerts.webhookUrl,
    config.ingest.secret,
    ...(config.ingest.secret ? secretList(config.ingest.secret) : []),
    config.ingest.hmacSecret,
    ...(config.ingest.hmacSecret ? secretList(config.ingest.hmacSecret) : []),
    ...redisPasswords(config.redis),
    ...config.tracing.secrets,
  ].filter((s): s is string => typeof s === 'string' && s.length > 0);
}

/** How the accounts of ACCOUNTS_FILE take turns (src/queue/dispatch/); `base`: QUEUE_PREFIX (an account's: the file's). */
function dispatchOf(e: Env) {
  return {
    base: e.QUEUE_PREFIX,
    places: e.WORKER_ACCOUNTS_OPEN,
    idleMs: e.ACCOUNT_IDLE_SECONDS * 1000,
    turnMs: e.ACCOUNT_TURN_SECONDS * 1000,
    weight: e.ACCOUNT_WEIGHT,
    shards: e.READY_SHARDS,
  };
}
