import type { envSchema } from './schema.js';

/**
 * One line for operators per setting of config/schema.ts: what it sets (its default comes from the schema). The type
 * asks for every setting, so a new one cannot go undocumented; `npm run docs:reference` writes them to
 * docs/reference.md beside the kinds' own settings.
 */
export const settingDocs: Record<keyof typeof envSchema.shape, string> = {
  INVENTORY_BASE_URL: 'The service (`https://app.example.com`; paths are `{base}/{account}/api/...`). Required but for `sandbox`, `demo`.',
  INVENTORY_ACCOUNT: 'The account path component. Required but for `sandbox`, `demo`.',
  INVENTORY_API_KEY: 'Basic credentials: the key (a secret). Required but for `sandbox`, `demo`.',
  INVENTORY_API_SECRET: 'Basic credentials: the secret (a secret). Required but for `sandbox`, `demo`.',
  INVENTORY_API_KEY_FILE: 'A file holding INVENTORY_API_KEY instead; read again on a 401, so a rotation needs no restart.',
  INVENTORY_API_SECRET_FILE: 'A file holding INVENTORY_API_SECRET instead; read again on a 401, so a rotation needs no restart.',
  UPSTREAM_TOKEN_FILE: "A file holding UPSTREAM_TOKEN instead; read again on the feed's 401.",
  REDIS_PASSWORD_FILE: 'A file holding REDIS_PASSWORD instead; read at start.',
  REDIS_SENTINEL_PASSWORD_FILE: 'A file holding REDIS_SENTINEL_PASSWORD instead; read at start.',
  DASHBOARD_PASSWORD_FILE: 'A file holding DASHBOARD_PASSWORD instead; read at start.',
  ALERT_WEBHOOK_URL_FILE: 'A file holding ALERT_WEBHOOK_URL instead; read at start.',
  INGEST_SECRET_FILE: 'A file holding INGEST_SECRET instead; read again when it changes.',
  INGEST_HMAC_SECRET_FILE: 'A file holding INGEST_HMAC_SECRET instead; read again when it changes.',
  SHOPIFY_ACCESS_TOKEN_FILE: "A file holding SHOPIFY_ACCESS_TOKEN instead; read again on the store's 401.",
  INVENTORY_POST_PER_MINUTE: 'POST requests a minute, a budget shared by every process of the account.',
  INVENTORY_GET_PER_MINUTE: 'GET requests a minute (collection GETs too), shared by every process of the account.',
  INVENTORY_COLLECTION_PER_HOUR: 'Collection GETs an hour, shared by every process of the account.',
  INVENTORY_REQUESTS_PER_MINUTE:
    'One budget every request spends, beside the others, for accounts with one total limit (when it ' +
    'is the only one, set the POST and GET budgets to it too).',
  INVENTORY_ADAPTIVE_RATE:
    "`on`: give way to the account's other clients (a 429 within budget, or `X-RateLimit-Remaining` showing others " +
    'spending), never above the budgets; `off`: the configured budgets alone.',
  INVENTORY_RATE_FLOOR_PERCENT:
    'The least share of a configured budget kept when others spend it; below it the program holds the floor and says so.',
  INVENTORY_RATE_START_PERCENT:
    'The share of each budget a fresh process starts at when nothing is remembered of the others (`sync --once`, ' +
    'a restarted worker): it rises a step every second (INVENTORY_RATE_START_RISE_PERCENT) while no 429 comes, to the ' +
    'full budget or the first 429; a share learnt from a 429 is remembered in Redis for the next process; `100` ' +
    'starts at the full budget. Unused when the service sends `X-RateLimit-Remaining` on every answer.',
  INVENTORY_RATE_START_RISE_PERCENT:
    'How fast that start rises, in percent of the budget a minute (a step every second): faster is a shorter start ' +
    'alone, and on fixed windows a larger overrun of what the others leave; 20 spares them (docs/budget-start.md).',
  INVENTORY_ENTITY_TIMEOUT_MS: 'Time-out of a single-entity call, in ms.',
  INVENTORY_COLLECTION_TIMEOUT_MS: 'Time-out of a collection GET, in ms (large accounts take tens of seconds).',
  REDIS_URL: 'Redis (`redis://` or `rediss://` for TLS; user, password and db in it).',
  REDIS_CLUSTER_NODES:
    'Seed nodes of a Redis Cluster, `host:port,...` or `rediss://user:password@host:port,...` ' +
    '(one scheme and credentials); `REDIS_URL` is then unused.',
  REDIS_PASSWORD: "The Redis password when it is not in `REDIS_URL` or `REDIS_CLUSTER_NODES` (with Sentinel: the primary's and replicas').",
  REDIS_TLS_CA_FILE: "A PEM file of the private CA that signed Redis's TLS certificate, trusted beside the public ones.",
  REDIS_SENTINELS: 'Redis through Sentinel: the sentinels, `host:port,...` (`rediss://host:port` for TLS); not with `REDIS_CLUSTER_NODES`.',
  REDIS_SENTINEL_NAME: 'The name the sentinels monitor the primary under; required with `REDIS_SENTINELS`.',
  REDIS_SENTINEL_PASSWORD: "The sentinels' own password (a secret).",
  ACCOUNTS_FILE:
    'Many accounts in one deployment: a JSON or YAML file naming each account and the settings it holds itself ' +
    '(docs/accounts.md); read again when it changes. Without it: one account, `default`, from the environment.',
  QUEUE_PREFIX: 'Prefix of every Redis key the program writes; on a cluster put in a `{hash tag}` when it has none.',
  UPSTREAM_URL: 'The upstream feed to pull (docs/records.md); without it, pushed and imported records only.',
  UPSTREAM_TOKEN: 'The bearer token of the feed (a secret).',
  SHOPIFY_STORE_URL:
    "A Shopify store as the orders' source, its origin (`https://{store}.myshopify.com`; any http(s) origin, so a local " +
    'store works): `worker` pulls its orders through the GraphQL Admin API (docs/shopify.md).',
  SHOPIFY_ACCESS_TOKEN:
    "The store's custom-app Admin API access token (`X-Shopify-Access-Token`, a secret). Required with SHOPIFY_STORE_URL.",
  SHOPIFY_API_VERSION: 'The Admin API version in the path (`YYYY-MM`); the default is one Shopify supports.',
  SHOPIFY_POLL_SECONDS:
    'With pushes on (INGEST_PORT), seconds between the store pulls that find what no webhook ' +
    "brought; without pushes, the orders kind's own poll paces it.",
  SHOPIFY_LOOKBACK_SECONDS: 'How far before its cursor each store pull reads again (an update can show after later ones were read).',
  FEED_PAGE_SIZE: 'Records asked of the feed per page.',
  MAX_RECORD_BYTES: 'The largest record (a feed record, an NDJSON line, a pushed record), in bytes.',
  FEED_MAX_PAGE_BYTES: 'The largest feed page, in bytes.',
  INVENTORY_MAX_RESPONSE_BYTES: 'The largest service answer, in bytes.',
  BAD_RECORDS_KEEP: 'Failed bad-record jobs kept per stream.',
  BAD_RECORDS_KEEP_DAYS: 'Days failed bad-record jobs are kept.',
  JOB_ATTEMPTS: 'Attempts of a job that meets transient failures (429s spend none).',
  JOB_LOCK_SECONDS:
    "Life of a running job's locks (queue and record key; renewed while it runs) and how often jobs left by a dead " +
    'process are looked for: they run again within about twice this.',
  RETRY_BASE_DELAY_MS: 'First delay between attempts, in ms (exponential, jittered).',
  RETRY_MAX_DELAY_MS: 'Longest delay between attempts, in ms.',
  LATE_WRITE_MS:
    'How long after a lost answer the service may still apply a variance create, in ms: one not found sooner is read ' +
    'again then, before it is sent again.',
  WORKER_CONCURRENCY:
    "Jobs at once per queue and process, fixed. Default: sized by the budget's effective rate × the " +
    "service's latency (× 2), from 8 to WORKER_CONCURRENCY_MAX.",
  WORKER_CONCURRENCY_MAX: 'The most jobs at once per queue and process while they are sized.',
  BREAKER_THRESHOLD: "Refusals about the account in a row (401, a 403 that is not a completed order's) that pause a stream until `resume`.",
  OUTAGE_PROBE_MAX_SECONDS: 'While the service (or one call of it) is down, the longest time between two probes (trials) of it.',
  OUTAGE_ALERT_SECONDS: 'An outage of the service (or a call of it held) this long is alerted, then its end.',
  SCHEDULE_CATCH_UP_SECONDS:
    'A scheduled pull missed (held, Redis away, no worker running) is made up once, when the cause ends or a worker ' +
    'starts, if it fell due at most this long ago (0: never made up).',
  CATALOG_REFRESH_SECONDS: 'The catalog is read again on a miss at most this often (0: on every miss).',
  CATALOG_CACHE_MB:
    "The most memory a process's catalogs (every account's) hold together, estimated; past it the least recently used " +
    'leave memory and are read from Redis again on their next use (docs/catalog.md).',
  CATALOG_IDLE_SECONDS: "A catalog unused this long leaves the process's memory until its next use (0: never for idleness).",
  WAIT_LOOK_SECONDS:
    'While a record waits for a product or facility the service lacks, the catalog is read again this often (two collection GETs).',
  WAIT_FOR_REFERENCE_HOURS:
    'How long a record waits for a missing product or facility before it fails for good with the reason (0: it fails at once, no wait).',
  WAIT_ALERT_HOURS: 'A record waiting this long for a missing product or facility is alerted (once per reference).',
  VARIANCE_CHUNK_SIZE: 'Lines per inventory variance; a count with more is posted in chunks.',
  DASHBOARD_USER: "The dashboard's login; required unless `--no-auth` on loopback.",
  DASHBOARD_PASSWORD: "The dashboard's password (a secret; at least 12 characters off loopback).",
  DASHBOARD_PUBLIC_URL: 'The origin users open through a TLS proxy (`https://ops.example.com`); the session cookie is `Secure` when https.',
  WORKER_HTTP_PORT: "The worker's `/metrics`, `/healthz` and `/readyz` (0 turns them off).",
  WORKER_HTTP_HOST: "The address the worker's endpoints listen on.",
  METRICS_ACCOUNTS:
    "With ACCOUNTS_FILE, accounts whose own series the worker's `/metrics` always shows, comma-separated, or `*` for every one; " +
    'the others are in the totals, and their own series shown only while in trouble (docs/monitoring.md, "Many accounts").',
  INGEST_PORT: 'Where `worker` (or `receive`) takes pushed records, `POST /ingest/{stream}`. Default: no receiver.',
  INGEST_HOST: 'The address the push receiver listens on.',
  INGEST_SECRET:
    'The Standard Webhooks secret(s) of pushes, `whsec_<base64>`, comma-separated during a rotation; required with INGEST_PORT.',
  INGEST_PUBLIC_URL: "The receiver's public origin, where `check --register-webhooks` points the store's webhooks.",
  INGEST_HMAC_SECRET: "The secret(s) of store webhooks signed in `X-Shopify-Hmac-Sha256` (Shopify's form). Default: that form refused.",
  INGEST_MAX_BODY_BYTES: "A push's largest body, in bytes (413 above).",
  INGEST_RATE_PER_SECOND: 'Pushes a sender address may make a second per receiver (429 above).',
  INGEST_MAX_BACKLOG: 'Jobs not yet run in a stream past which its pushes are answered 503.',
  ALERT_WEBHOOK_URL: 'Where `worker` POSTs a Slack-compatible `{"text"}` alert (a secret). Default: no alerts.',
  ALERT_LAG_SECONDS: 'The feed lag that alerts, in seconds.',
  ALERT_INTERVAL_SECONDS: 'At most one alert per reason in this many seconds.',
  ALERT_REDIS_REFUSED_SECONDS: 'Redis refusing writes (`OOM`, `READONLY`) or not answering this long alerts once.',
  ALERT_CHECK_SECONDS: '`worker` looks for reasons to alert this often (an outage, its end, lag, new failures), in seconds.',
  REDIS_START_WAIT_SECONDS: '`worker` and `dashboard` wait this long at start for Redis, then exit 3 (one-shot commands: 3 s).',
  SHUTDOWN_GRACE_SECONDS: 'On SIGTERM, how long running jobs may finish before the process stops.',
  WORKER_ACCOUNTS_OPEN:
    'With ACCOUNTS_FILE, accounts with work one `worker` process has open at once; the others wait for a turn ' +
    '(docs/accounts.md, "How accounts take turns").',
  ACCOUNT_IDLE_SECONDS: 'With ACCOUNTS_FILE, an open account with nothing to do this long is closed: it holds nothing then.',
  ACCOUNT_TURN_SECONDS: 'With ACCOUNTS_FILE, an open account hands its place back after this long while other accounts wait.',
  ACCOUNT_WEIGHT: "An account's share of the turns against the others' (ACCOUNTS_FILE): weighted 2, twice the turns of one weighted 1.",
  READY_SHARDS: "With ACCOUNTS_FILE, the ready set's shards (each its own hash tag on a Redis Cluster); the same in every process.",
  ACCOUNTS_RELOAD_SECONDS:
    '`worker`, `receive` and `dashboard` look this often whether ACCOUNTS_FILE changed, and follow it (docs/accounts.md).',
  MAPPING_FILE: "A CSV or JSON file of upstream productIds and facility names to the service's (docs/mapping.md).",
  TRANSFORMS:
    "Per stream, the transform from the upstream's own shape: `stream=name` or `stream=path.mjs`, comma-separated (docs/transforms.md).",
  OTEL_EXPORTER_OTLP_ENDPOINT: 'Export a trace per job over OTLP/HTTP to this endpoint. Default: no tracing, the SDK not loaded.',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'The same, for traces only.',
  OTEL_EXPORTER_OTLP_HEADERS: 'Headers of the OTLP export (secrets).',
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'Headers of the traces export (secrets).',
  OTEL_SDK_DISABLED: '`true` turns tracing off.',
  OTEL_TRACES_EXPORTER: '`none` turns tracing off.',
  LOG_LEVEL: 'The pino level: fatal, error, warn, info, debug, trace, silent. Set, a one-shot command writes it on stderr too.',
  LOG_FILE:
    'A file a one-shot command (import, sync, status, ...) appends its log records to, as JSON lines at LOG_LEVEL; ' +
    'stderr keeps warnings and errors.',
};
