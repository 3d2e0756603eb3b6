import { workMarkOf } from '../queue/dispatch/work-mark.js';
import type { Dispatcher } from 'undici';
import { ConfigError, type Config } from '../../config/read-config.js';
import { Catalog } from '../catalog/catalog.js';
import { CatalogBudget } from '../catalog/catalog-budget.js';
import { serviceCalls } from '../client/service-calls.js';
import { CallHolds } from '../queue/hold/call-holds.js';
import { callHoldLayer } from '../queue/hold/call-hold-layer.js';
import { MappedCatalog } from '../catalog/mapped-catalog.js';
import type { CatalogApi } from '../catalog/types.js';
import { RequestBudget } from '../client/budget/budget.js';
import { Credentials } from '../client/credentials.js';
import { ServiceClient, type ServiceClientOptions } from '../client/service-client.js';
import type { ApiCall } from '../client/service-api.js';
import { UpstreamClient } from '../feed/upstream-client.js';
import type { FeedSource } from '../feed/feed-source.js';
import { feedSources } from './feed-sources.js';
import { LatencyMeter } from '../queue/concurrency-sizer.js';
import { logShareChanges } from '../client/budget/share-log.js';
import { startStep } from '../client/budget/share.js';
import { defaults } from '../../config/defaults.js';
import { addSecrets, type Logger } from '../log/logger.js';
import { createQueues } from '../queue/queues.js';
import type { RuntimeDeps } from './runtime.js';
import type { StreamName } from '../records/stream-name.js';
import { createRedis, type RedisConnection as Redis, redisKeys } from '../redis/connection.js';
import { readOnlyQueues } from './read-only-queues.js';
import { readOnlyRedis } from './read-only-redis.js';
import type { Kind } from '../kinds/kind.js';

export interface AppDeps extends RuntimeDeps {
  /** Undefined when built with budget: false. */
  budget?: RequestBudget;
  client: ServiceClient;
  /** The service's credentials the client sends, read again from their files on a 401 (src/client/credentials.ts). */
  credentials: Credentials;
  catalog: CatalogApi;
  /** Where pulls read each stream: the HTTP feed, a store (SHOPIFY_STORE_URL), or both (src/app/feed-sources.ts). */
  upstream?: FeedSource;
  /** Closes the queues, the HTTP pools, and Redis unless it was handed in. */
  close(): Promise<void>;
}

/** What a caller puts in place of the configuration's parts: the entry point, the test worlds and the benches. */
export interface BuildDepsOptions {
  /** A Redis connection already checked (e.g. by the CLI); left open by close(). Default: a new one from config.redis.url. */
  redis?: Redis;
  /** Called for every request to the service (metrics). */
  onCall?: (call: ApiCall) => void;
  /** undici dispatcher for the service (tests). */
  dispatcher?: Dispatcher;
  /** Client settings the configuration has no variable for (benches: connections; tests: short read retry delays). */
  client?: Pick<ServiceClientOptions, 'connections' | 'retryMinDelayMs'>;
  /** false: no shared request budget (a sandbox without limits; 429s still hold in the process). */
  budget?: false;
  /** The catalog to use instead of one over the client (tests that must not read it). */
  catalog?: CatalogApi;
  /** The process's bound on catalog memory, shared by its accounts (left open by close()). Default: one of its own. */
  catalogBudget?: CatalogBudget;
  /** The kinds of job: the composition root's list (jobs/kinds.ts), or a test's. */
  kinds: readonly Kind[];
  /** The streams to open queues for. Default: those of the kinds. */
  streams?: readonly StreamName[];
  /** Tracing, when on (src/telemetry/tracing.ts): the queues get BullMQ's telemetry, the workers the job spans. */
  tracing?: RuntimeDeps['tracing'];
  /**
   * A dry run (`--dry-run`): every part handed out can only read. The client refuses writes, `redis` every command
   * but reads, the queues every add, retry or move; the feed's sources note nothing; no worker starts. The catalog's
   * cache and the budget's counters still write through the connection underneath. Default false.
   */
  dryRun?: boolean;
}

/** A bound on catalog memory from the deployment's settings (CATALOG_CACHE_MB, CATALOG_IDLE_SECONDS), for one process. */
export function catalogBudgetOf(config: Config): CatalogBudget {
  return new CatalogBudget({ maxBytes: config.catalog.cacheBytes, idleMs: config.catalog.idleMs });
}

/** The program's parts, wired from the configuration: Redis, budget, service client, catalog, feed client, queues. */
export function buildDeps(config: Config, logger: Logger, opts: BuildDepsOptions): AppDeps {
  const service = config.service;
  const kinds = opts.kinds;
  if (!service)
    throw new ConfigError([
      'INVENTORY_BASE_URL: is required (with INVENTORY_ACCOUNT, INVENTORY_API_KEY, INVENTORY_API_SECRET) to reach the service',
    ]);
  const redis = opts.redis ?? createRedis(config.redis);
  const dryRun = opts.dryRun === true;
  const latency = new LatencyMeter();
  const keys = redisKeys(config.redis.prefix);
  const share = service.adaptiveRate;
  const shares = share.enabled
    ? {
        floor: share.floorPercent / 100,
        start: share.startPercent / 100,
        startStep: startStep(share.startRisePercent),
        account: service.account,
        onChange: logShareChanges(logger, service.budgets, share.floorPercent),
      }
    : (false as const);
  const budget = opts.budget === false ? undefined : new RequestBudget({ redis, keys, budgets: service.budgets, shares });
  const credentials = serviceCredentials(config, logger);
  const client = serviceClient(config, { credentials, budget, latency, opts, readOnly: dryRun });
  // One call's failures hold that call, for the jobs and for the catalog's reads they make (src/queue/hold/call-hold.ts).
  const callHolds = new CallHolds({ redis, keys, logger, maxTrialMs: config.outage.probeMaxMs });
  const catalogClient = client.apiOf(serviceCalls).with(callHoldLayer(callHolds, 'catalog'));
  // One bound on catalog memory for the process: handed in when it runs several accounts, else this account's own.
  const memory = opts.catalogBudget ?? catalogBudgetOf(config);
  const { refreshSeconds } = config.catalog;
  const own = opts.catalog ? undefined : new Catalog({ client: catalogClient, redis, keys, refreshSeconds, logger, budget: memory });
  const bare = opts.catalog ?? own!;
  // The one place MAPPING_FILE applies: every lookup of every kind, reconcile, check and dry run goes through it.
  const catalog = config.mapping
    ? new MappedCatalog(bare, config.mapping, (problems) =>
        logger.warn({ problems }, 'MAPPING_FILE changed but cannot be read; the mapping read before stays'),
      )
    : bare;
  const opened = createQueues({
    connection: redis,
    prefix: config.redis.prefix,
    jobs: config.jobs,
    telemetry: opts.tracing?.telemetry,
    streams: opts.streams ?? kinds.map((k) => k.stream),
    mark: dryRun ? undefined : workMarkOf(redis, config),
  });
  const queues = dryRun ? readOnlyQueues(opened) : opened;
  // What the commands and the runtime get: in a dry run, reads only.
  const handed = dryRun ? readOnlyRedis(redis) : redis;
  return {
    config,
    logger,
    redis: handed,
    dryRun,
    keys,
    budget,
    client,
    credentials,
    catalog,
    callHolds,
    upstream: feedSources({ config, logger, kinds, redis: handed, keys, http: upstreamClient(config, logger), dryRun }),
    kinds,
    queues,
    pace: {
      ratePerSecond: () => budget?.ratePerSecond() ?? Infinity,
      latencyMs: () => latency.ms(),
      refresh: async () => budget?.refreshShares(),
    },
    tracing: opts.tracing,
    async close() {
      own?.close();
      if (!opts.catalogBudget) memory.close();
      await queues.close();
      await client.close();
      if (!opts.redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** The service client: the configuration's service, through the budget, every call timed (and handed to opts.onCall). */
function serviceClient(
  config: Config,
  o: { credentials: Credentials; budget: RequestBudget | undefined; latency: LatencyMeter; opts: BuildDepsOptions; readOnly: boolean },
): ServiceClient {
  const service = config.service!;
  return new ServiceClient({
    baseUrl: service.baseUrl,
    account: service.account,
    credentials: o.credentials,
    budget: o.budget,
    entityTimeoutMs: service.entityTimeoutMs,
    collectionTimeoutMs: service.collectionTimeoutMs,
    readRetries: service.readRetries,
    maxResponseBytes: service.maxResponseBytes,
    readOnly: o.readOnly,
    dispatcher: o.opts.dispatcher,
    // Concurrency that follows the rate may reach its maximum: as many connections (opened only when used).
    ...(config.concurrency.fixed === undefined ? { connections: Math.max(defaults.serviceConnections, config.concurrency.max) } : {}),
    onCall: (call) => {
      o.latency.record(call);
      o.opts.onCall?.(call);
    },
    ...o.opts.client,
  });
}

/** The feed's client, when the configuration names the feed. */
export function upstreamClient(config: Config, logger: Logger): UpstreamClient | undefined {
  if (!config.upstream) return undefined;
  return new UpstreamClient({
    url: config.upstream.url,
    token: config.upstream.token,
    tokenFile: config.secretFiles.UPSTREAM_TOKEN,
    onTokenChange: (token) => {
      addSecrets(logger, [token]);
      logger.info('upstream token read again from UPSTREAM_TOKEN_FILE after a 401: it changed, the feed is asked with the new one');
    },
    onTokenProblem: (line) => logger.warn(`UPSTREAM_TOKEN_FILE: ${line}`),
    maxRecordBytes: config.limits.maxRecordBytes,
    maxPageBytes: config.limits.feedMaxPageBytes,
  });
}

/** The service's credentials: from the configuration, and read again from their files (when given so) on a 401. */
function serviceCredentials(config: Config, logger: Logger): Credentials {
  const { apiKey, apiSecret } = config.service!;
  return new Credentials({
    key: apiKey,
    secret: apiSecret,
    keyFile: config.secretFiles.INVENTORY_API_KEY,
    secretFile: config.secretFiles.INVENTORY_API_SECRET,
    onChange: (key, secret) => {
      // Learned before anything can log them.
      addSecrets(logger, [key, secret], [[key, secret]]);
      logger.info('service credentials read again from their files after a 401: they changed, and every later request sends them');
    },
    onProblem: (line) => logger.warn(line),
  });
}
