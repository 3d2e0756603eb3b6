import { z } from 'zod';
import { parseRedisNodes, type ParsedNodes } from './redis-target.js';
import { defaults } from './defaults.js';
import { webhookSecretsProblem } from './webhook-secrets.js';
import { httpUrl, nonNegativeInt, optionalText, positiveInt } from './setting-rules.js';

/**
 * The settings that hold a secret. Each may be given instead as a file that holds it (`X_FILE`, read by
 * config/secret-files.ts: exactly one of the two, trailing newlines dropped), as secret managers hand them out.
 */
export const secretSettings = [
  'INVENTORY_API_KEY',
  'INVENTORY_API_SECRET',
  'UPSTREAM_TOKEN',
  'REDIS_PASSWORD',
  'REDIS_SENTINEL_PASSWORD',
  'DASHBOARD_PASSWORD',
  'ALERT_WEBHOOK_URL',
  'INGEST_SECRET',
  'INGEST_HMAC_SECRET',
  'SHOPIFY_ACCESS_TOKEN',
] as const;
export type SecretSetting = (typeof secretSettings)[number];

/**
 * The environment variables of docs/reference.md, plus the program's tuning knobs; the kinds of job declare their
 * own (config/kind-setting.ts), and readConfig adds them from the list it is handed.
 */
export const envSchema = z.object({
  INVENTORY_BASE_URL: httpUrl('INVENTORY_BASE_URL').optional(),
  INVENTORY_ACCOUNT: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._~-]+$/, 'INVENTORY_ACCOUNT must be one URL path segment (letters, digits, . _ ~ -)')
    // A dot-segment names no account: every path under it would leave the account's API (src/client/api-path.ts).
    .refine((v) => v !== '.' && v !== '..', 'INVENTORY_ACCOUNT must be one URL path segment, not . or ..')
    .optional(),
  INVENTORY_API_KEY: optionalText,
  INVENTORY_API_SECRET: optionalText,
  // The files of the secret settings (secretSettings): paths, read before this schema applies.
  INVENTORY_API_KEY_FILE: optionalText,
  INVENTORY_API_SECRET_FILE: optionalText,
  UPSTREAM_TOKEN_FILE: optionalText,
  REDIS_PASSWORD_FILE: optionalText,
  REDIS_SENTINEL_PASSWORD_FILE: optionalText,
  DASHBOARD_PASSWORD_FILE: optionalText,
  ALERT_WEBHOOK_URL_FILE: optionalText,
  INGEST_SECRET_FILE: optionalText,
  INGEST_HMAC_SECRET_FILE: optionalText,
  SHOPIFY_ACCESS_TOKEN_FILE: optionalText,
  INVENTORY_POST_PER_MINUTE: positiveInt('INVENTORY_POST_PER_MINUTE').default(defaults.postPerMinute),
  INVENTORY_GET_PER_MINUTE: positiveInt('INVENTORY_GET_PER_MINUTE').default(defaults.getPerMinute),
  INVENTORY_COLLECTION_PER_HOUR: positiveInt('INVENTORY_COLLECTION_PER_HOUR').default(defaults.collectionPerHour),
  INVENTORY_REQUESTS_PER_MINUTE: positiveInt('INVENTORY_REQUESTS_PER_MINUTE').optional(),
  INVENTORY_ADAPTIVE_RATE: z
    .enum(['on', 'off'], { error: 'INVENTORY_ADAPTIVE_RATE must be on or off' })
    .default(defaults.adaptiveRate ? 'on' : 'off'),
  INVENTORY_RATE_FLOOR_PERCENT: positiveInt('INVENTORY_RATE_FLOOR_PERCENT')
    .refine((p) => p <= 100, 'INVENTORY_RATE_FLOOR_PERCENT must be at most 100')
    .default(defaults.rateFloorPercent),
  INVENTORY_RATE_START_PERCENT: positiveInt('INVENTORY_RATE_START_PERCENT')
    .refine((p) => p <= 100, 'INVENTORY_RATE_START_PERCENT must be at most 100')
    .default(defaults.rateStartPercent),
  INVENTORY_RATE_START_RISE_PERCENT: positiveInt('INVENTORY_RATE_START_RISE_PERCENT')
    .refine((p) => p <= 6000, 'INVENTORY_RATE_START_RISE_PERCENT must be at most 6000')
    .default(defaults.rateStartRisePercent),
  INVENTORY_ENTITY_TIMEOUT_MS: positiveInt('INVENTORY_ENTITY_TIMEOUT_MS').default(defaults.entityTimeoutMs),
  INVENTORY_COLLECTION_TIMEOUT_MS: positiveInt('INVENTORY_COLLECTION_TIMEOUT_MS').default(defaults.collectionTimeoutMs),
  REDIS_URL: z
    .string()
    .trim()
    .refine((v) => /^rediss?:\/\//.test(v), 'REDIS_URL must start with redis:// or rediss://')
    .default(defaults.redisUrl),
  REDIS_CLUSTER_NODES: z
    .string()
    .trim()
    .transform((v, ctx): ParsedNodes => {
      const nodes = parseRedisNodes(v);
      if (!('problem' in nodes)) return nodes;
      // Never the value: its URLs may hold a password.
      ctx.addIssue({
        code: 'custom',
        message:
          'REDIS_CLUSTER_NODES must be host:port pairs, or redis[s]://[user:password@]host:port URLs, separated by commas, ' +
          `such as 10.0.0.1:6379,10.0.0.2:6379 (${nodes.problem})`,
      });
      return z.NEVER;
    })
    .optional(),
  REDIS_PASSWORD: optionalText,
  REDIS_TLS_CA_FILE: optionalText,
  REDIS_SENTINELS: z
    .string()
    .trim()
    .transform((v, ctx): ParsedNodes => {
      const nodes = parseRedisNodes(v, 26379);
      if ('problem' in nodes)
        ctx.addIssue({
          code: 'custom',
          message: `REDIS_SENTINELS must be host:port pairs separated by commas, such as 10.0.0.1:26379,10.0.0.2:26379 (${nodes.problem})`,
        });
      else if (nodes.username || nodes.password)
        ctx.addIssue({
          code: 'custom',
          message: "REDIS_SENTINELS: put the sentinels' password in REDIS_SENTINEL_PASSWORD, not in the addresses",
        });
      else return nodes;
      return z.NEVER;
    })
    .optional(),
  REDIS_SENTINEL_NAME: z
    .string()
    .trim()
    .regex(
      /^[A-Za-z0-9._-]+$/,
      'REDIS_SENTINEL_NAME must be the name the sentinels monitor the primary under (letters, digits, . _ -), such as mymaster',
    )
    .optional(),
  REDIS_SENTINEL_PASSWORD: optionalText,
  ACCOUNTS_FILE: optionalText,
  QUEUE_PREFIX: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_{}.-]+$/, 'QUEUE_PREFIX may hold letters, digits, _ - . and {} only')
    .default(defaults.queuePrefix),
  UPSTREAM_URL: httpUrl('UPSTREAM_URL').optional(),
  UPSTREAM_TOKEN: optionalText,
  SHOPIFY_STORE_URL: httpUrl('SHOPIFY_STORE_URL')
    .refine((v) => URL.canParse(v) && new URL(v).pathname === '/' && !new URL(v).search, {
      message: "SHOPIFY_STORE_URL must be the store's origin only, such as https://my-store.myshopify.com",
    })
    .transform((v) => new URL(v).origin)
    .optional(),
  SHOPIFY_ACCESS_TOKEN: optionalText,
  SHOPIFY_API_VERSION: z
    .string()
    .trim()
    .regex(
      /^\d{4}-(01|04|07|10)$/,
      'SHOPIFY_API_VERSION must be a Shopify API version YYYY-MM (January, April, July or October), such as 2025-10',
    )
    .default(defaults.shopifyApiVersion),
  SHOPIFY_POLL_SECONDS: positiveInt('SHOPIFY_POLL_SECONDS').default(defaults.shopifyPollSeconds),
  SHOPIFY_LOOKBACK_SECONDS: positiveInt('SHOPIFY_LOOKBACK_SECONDS').default(defaults.shopifyLookBackSeconds),
  FEED_PAGE_SIZE: positiveInt('FEED_PAGE_SIZE').default(defaults.feedPageSize),
  MAX_RECORD_BYTES: positiveInt('MAX_RECORD_BYTES').default(defaults.maxRecordBytes),
  FEED_MAX_PAGE_BYTES: positiveInt('FEED_MAX_PAGE_BYTES').default(defaults.feedMaxPageBytes),
  INVENTORY_MAX_RESPONSE_BYTES: positiveInt('INVENTORY_MAX_RESPONSE_BYTES').default(defaults.maxResponseBytes),
  BAD_RECORDS_KEEP: positiveInt('BAD_RECORDS_KEEP').default(defaults.badRecordsKeep),
  BAD_RECORDS_KEEP_DAYS: positiveInt('BAD_RECORDS_KEEP_DAYS').default(defaults.badRecordsKeepDays),
  JOB_ATTEMPTS: positiveInt('JOB_ATTEMPTS').default(defaults.jobAttempts),
  JOB_LOCK_SECONDS: positiveInt('JOB_LOCK_SECONDS').default(defaults.jobLockMs / 1000),
  RETRY_BASE_DELAY_MS: positiveInt('RETRY_BASE_DELAY_MS').default(defaults.retryBaseDelayMs),
  RETRY_MAX_DELAY_MS: positiveInt('RETRY_MAX_DELAY_MS').default(defaults.retryMaxDelayMs),
  LATE_WRITE_MS: positiveInt('LATE_WRITE_MS').default(defaults.lateWriteMs),
  WORKER_CONCURRENCY: positiveInt('WORKER_CONCURRENCY').optional(),
  WORKER_CONCURRENCY_MAX: positiveInt('WORKER_CONCURRENCY_MAX').default(defaults.workerConcurrencyMax),
  BREAKER_THRESHOLD: positiveInt('BREAKER_THRESHOLD').default(defaults.breakerThreshold),
  OUTAGE_PROBE_MAX_SECONDS: positiveInt('OUTAGE_PROBE_MAX_SECONDS').default(defaults.outageProbeMaxMs / 1000),
  OUTAGE_ALERT_SECONDS: positiveInt('OUTAGE_ALERT_SECONDS').default(defaults.outageAlertSeconds),
  SCHEDULE_CATCH_UP_SECONDS: nonNegativeInt('SCHEDULE_CATCH_UP_SECONDS').default(defaults.scheduleCatchUpSeconds),
  CATALOG_REFRESH_SECONDS: nonNegativeInt('CATALOG_REFRESH_SECONDS').default(defaults.catalogRefreshSeconds),
  CATALOG_CACHE_MB: positiveInt('CATALOG_CACHE_MB').default(defaults.catalogCacheMb),
  CATALOG_IDLE_SECONDS: nonNegativeInt('CATALOG_IDLE_SECONDS').default(defaults.catalogIdleSeconds),
  WAIT_LOOK_SECONDS: positiveInt('WAIT_LOOK_SECONDS').default(defaults.waitLookSeconds),
  WAIT_FOR_REFERENCE_HOURS: nonNegativeInt('WAIT_FOR_REFERENCE_HOURS').default(defaults.waitForReferenceHours),
  WAIT_ALERT_HOURS: positiveInt('WAIT_ALERT_HOURS').default(defaults.waitAlertHours),
  VARIANCE_CHUNK_SIZE: positiveInt('VARIANCE_CHUNK_SIZE').default(defaults.varianceChunkSize),
  DASHBOARD_USER: optionalText,
  DASHBOARD_PASSWORD: optionalText,
  DASHBOARD_PUBLIC_URL: httpUrl('DASHBOARD_PUBLIC_URL')
    .refine((v) => {
      const u = URL.canParse(v) ? new URL(v) : undefined;
      return u !== undefined && u.pathname === '/' && !u.search && !u.hash && !u.username && !u.password;
    }, 'DASHBOARD_PUBLIC_URL must be an origin only, such as https://ops.example.com (the dashboard is served at the root)')
    .transform((v) => new URL(v).origin)
    .optional(),
  WORKER_HTTP_PORT: nonNegativeInt('WORKER_HTTP_PORT')
    .refine((p) => p <= 65535, 'WORKER_HTTP_PORT must be at most 65535')
    .default(defaults.workerHttpPort),
  WORKER_HTTP_HOST: z.string().trim().min(1).default(defaults.workerHttpHost),
  METRICS_ACCOUNTS: z
    .string()
    .trim()
    .default(defaults.metricsAccounts)
    .transform((v, ctx): string[] | '*' => {
      if (v === '*') return '*';
      const names = v
        .split(',')
        .map((n) => n.trim())
        .filter((n) => n !== '');
      const bad = names.filter((n) => !/^[a-z0-9-]{1,32}$/.test(n));
      if (bad.length)
        ctx.addIssue({
          code: 'custom',
          message:
            'METRICS_ACCOUNTS must be `*` or account names of ACCOUNTS_FILE ([a-z0-9-], 1 to 32 characters), comma-separated: ' +
            `not ${bad.map((n) => JSON.stringify(n)).join(', ')}`,
        });
      return names;
    }),
  INGEST_PORT: positiveInt('INGEST_PORT')
    .refine((p) => p <= 65535, 'INGEST_PORT must be at most 65535')
    .optional(),
  INGEST_HOST: z.string().trim().min(1).default(defaults.ingestHost),
  INGEST_SECRET: z
    .string()
    .trim()
    .superRefine((v, ctx) => {
      const problem = webhookSecretsProblem(v);
      // Never the value: it is the secret.
      if (problem) ctx.addIssue({ code: 'custom', message: `INGEST_SECRET: ${problem}` });
    })
    .optional(),
  INGEST_HMAC_SECRET: optionalText,
  INGEST_PUBLIC_URL: httpUrl('INGEST_PUBLIC_URL')
    .refine((v) => URL.canParse(v) && new URL(v).pathname === '/', {
      message: "INGEST_PUBLIC_URL must be the receiver's public origin only, such as https://hooks.example.com",
    })
    .transform((v) => new URL(v).origin)
    .optional(),
  INGEST_MAX_BODY_BYTES: positiveInt('INGEST_MAX_BODY_BYTES').default(defaults.ingestMaxBodyBytes),
  INGEST_RATE_PER_SECOND: positiveInt('INGEST_RATE_PER_SECOND').default(defaults.ingestRatePerSecond),
  INGEST_MAX_BACKLOG: positiveInt('INGEST_MAX_BACKLOG').default(defaults.ingestMaxBacklog),
  ALERT_WEBHOOK_URL: httpUrl('ALERT_WEBHOOK_URL').optional(),
  ALERT_LAG_SECONDS: positiveInt('ALERT_LAG_SECONDS').default(defaults.alertLagSeconds),
  ALERT_INTERVAL_SECONDS: positiveInt('ALERT_INTERVAL_SECONDS').default(defaults.alertIntervalSeconds),
  ALERT_REDIS_REFUSED_SECONDS: positiveInt('ALERT_REDIS_REFUSED_SECONDS').default(defaults.alertRedisRefusedSeconds),
  ALERT_CHECK_SECONDS: positiveInt('ALERT_CHECK_SECONDS').default(defaults.alertCheckSeconds),
  REDIS_START_WAIT_SECONDS: nonNegativeInt('REDIS_START_WAIT_SECONDS').default(defaults.redisStartWaitSeconds),
  SHUTDOWN_GRACE_SECONDS: positiveInt('SHUTDOWN_GRACE_SECONDS').default(defaults.shutdownGraceSeconds),
  WORKER_ACCOUNTS_OPEN: positiveInt('WORKER_ACCOUNTS_OPEN').default(defaults.workerAccountsOpen),
  ACCOUNT_IDLE_SECONDS: positiveInt('ACCOUNT_IDLE_SECONDS').default(defaults.accountIdleSeconds),
  ACCOUNT_TURN_SECONDS: positiveInt('ACCOUNT_TURN_SECONDS').default(defaults.accountTurnSeconds),
  ACCOUNT_WEIGHT: z.coerce
    .number({ error: 'ACCOUNT_WEIGHT must be a number' })
    .min(0.1, 'ACCOUNT_WEIGHT must be between 0.1 and 100')
    .max(100, 'ACCOUNT_WEIGHT must be between 0.1 and 100')
    .default(1),
  READY_SHARDS: positiveInt('READY_SHARDS').max(1024, 'READY_SHARDS must be 1024 or less').default(defaults.readyShards),
  ACCOUNTS_RELOAD_SECONDS: positiveInt('ACCOUNTS_RELOAD_SECONDS').default(defaults.accountsReloadSeconds),
  MAPPING_FILE: optionalText,
  /** Per stream, the transform from the upstream's own shape: `stream=name-or-module.mjs,...` (docs/transforms.md). */
  TRANSFORMS: optionalText,
  // Standard OpenTelemetry settings (the SDK reads them itself): only what decides whether to trace, and the secrets.
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl('OTEL_EXPORTER_OTLP_ENDPOINT').optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT').optional(),
  OTEL_EXPORTER_OTLP_HEADERS: optionalText,
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: optionalText,
  OTEL_SDK_DISABLED: optionalText,
  OTEL_TRACES_EXPORTER: optionalText,
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .default(defaults.logLevel),
  LOG_FILE: optionalText,
});

export type Env = z.infer<typeof envSchema>;
