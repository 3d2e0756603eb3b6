import { randomBytes } from 'node:crypto';
import type { FaultRule } from '../../src/sandbox/sandbox-options.js';
import type { ChaosOptions } from './chaos-options.js';
import { POISON_MAX_RECORD_BYTES } from './poison.js';

/** Fresh secrets per run, long and random, so a search for them cannot match anything by chance. */
export function chaosSecrets() {
  const hex = () => randomBytes(12).toString('hex');
  return {
    apiKey: `chaos-key-${hex()}`,
    apiSecret: `chaos-secret-${hex()}`,
    upstreamToken: `chaos-token-${hex()}`,
    dashboardUser: 'chaos-operator',
    dashboardPassword: `chaos-pass-${hex()}`,
  };
}
export type ChaosSecrets = ReturnType<typeof chaosSecrets>;

/** The environment of every worker: the real `worker` command against the sandbox, the feed and the private Redis. */
export function workerEnv(
  o: ChaosOptions,
  s: ChaosSecrets,
  where: { serviceUrl: string; account: string; redisUrl: string; feedUrl: string; prefix: string },
) {
  return {
    INVENTORY_BASE_URL: where.serviceUrl,
    INVENTORY_ACCOUNT: where.account,
    INVENTORY_API_KEY: s.apiKey,
    INVENTORY_API_SECRET: s.apiSecret,
    INVENTORY_POST_PER_MINUTE: String(o.postPerMinute),
    INVENTORY_GET_PER_MINUTE: String(o.postPerMinute * 2),
    INVENTORY_COLLECTION_PER_HOUR: '100000',
    ...(o.totalPerMinute ? { INVENTORY_REQUESTS_PER_MINUTE: String(o.totalPerMinute) } : {}),
    // Hangs must turn into time-outs quickly; collection GETs are never hung by the fault plan.
    INVENTORY_ENTITY_TIMEOUT_MS: '2000',
    INVENTORY_COLLECTION_TIMEOUT_MS: '20000',
    REDIS_URL: where.redisUrl,
    QUEUE_PREFIX: where.prefix,
    UPSTREAM_URL: where.feedUrl,
    UPSTREAM_TOKEN: s.upstreamToken,
    ORDER_POLL_SECONDS: '1',
    BOM_POLL_SECONDS: '2',
    STOCK_SYNC_CRON: '*/3 * * * * *',
    FEED_PAGE_SIZE: '200',
    // The poison feed's oversized record is over this cap (kept small so it is cheap to serve again and again).
    MAX_RECORD_BYTES: String(POISON_MAX_RECORD_BYTES),
    JOB_ATTEMPTS: '40',
    // A job's lock and its execution's lease (the freezes are longer: docs/holds.md "Fenced writes").
    JOB_LOCK_SECONDS: String(o.jobLockSeconds),
    RETRY_BASE_DELAY_MS: '200',
    RETRY_MAX_DELAY_MS: '2000',
    WORKER_CONCURRENCY: String(o.concurrency),
    VARIANCE_CHUNK_SIZE: String(o.chunkSize),
    CATALOG_REFRESH_SECONDS: '5',
    // The storm's bad records name products and locations the service lacks and are held to failing at once, with their
    // field: waiting for the reference is off here (its own tests: test/jobs/wait-for-reference.test.ts).
    WAIT_FOR_REFERENCE_HOURS: '0',
    SHUTDOWN_GRACE_SECONDS: '20',
    WORKER_HTTP_PORT: '0',
    LOG_LEVEL: 'debug',
  };
}

/** The service's faults during the storm; every rate scaled by faultScale. */
export function faultPlan(scale: number): FaultRule[] {
  const rate = (r: number) => Math.min(1, r * scale);
  const rules: FaultRule[] = [
    // Entity paths only: a hung collection GET would wait for the long collection time-out.
    { kind: 'hang', rate: rate(0.01), path: '/api/(order|shipment|inventoryvariance|product)/[^/]+' },
    { kind: 'apply-then-drop', rate: rate(0.03), method: 'POST' },
    { kind: 'reset', rate: rate(0.015) },
    { kind: 'status-503', rate: rate(0.02) },
  ];
  return rules.filter((r) => (r.rate ?? 1) > 0);
}
