import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { sandboxEnv } from '../../../src/app/sandbox-config.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/sandbox.js';
import { SANDBOX_STORE_MAPPING, startShopifyStore, type ShopifyStore } from '../../../src/sandbox/shopify/shopify-store.js';
import { baseEnv } from '../../cli/run-cli.js';
import { freePort, startWorkerProcess, type WorkerProcess } from '../../cli/worker-process.js';
import { connect, deletePrefix, redisUrl, uniquePrefix } from '../../helpers/redis.js';

/** The sandbox store's locations mapped into the demo account (A-01, A-02; A-03 for units not shipped yet). */
export const MAPPING = SANDBOX_STORE_MAPPING;

export const TOPICS = ['orders/create', 'orders/updated', 'orders/cancelled', 'refunds/create'];

/** A sandbox service, a sandbox Shopify store, a mapping file and the environment of a `worker` that takes both. */
export interface StoreWorld {
  sandbox: Sandbox;
  store: ShopifyStore;
  redis: Redis;
  prefix: string;
  env: Record<string, string>;
  ingestPort: number;
  worker?: WorkerProcess;
  /** Subscribes the store's four topics to the worker's receiver. */
  subscribe(): void;
  startWorker(extra?: Record<string, string>): WorkerProcess;
  close(): Promise<void>;
}

export async function storeWorld(
  name: string,
  o: { seed?: number; env?: Record<string, string>; bucket?: { maximumAvailable: number; restoreRate: number } } = {},
): Promise<StoreWorld> {
  const sandbox = await startSandbox({ data: 'demo' });
  const store = await startShopifyStore({ seed: o.seed ?? 7, ...(o.bucket ? { bucket: o.bucket } : {}) });
  const dir = mkdtempSync(join(tmpdir(), 'isync-store-'));
  const mapping = join(dir, 'mapping.csv');
  writeFileSync(mapping, MAPPING);
  const redis = connect();
  const prefix = uniquePrefix(name);
  const ingestPort = await freePort();
  const env: Record<string, string> = {
    ...baseEnv(),
    ...sandboxEnv(sandbox),
    REDIS_URL: redisUrl(),
    QUEUE_PREFIX: prefix,
    MAPPING_FILE: mapping,
    SHOPIFY_STORE_URL: store.url,
    SHOPIFY_ACCESS_TOKEN: store.token,
    INGEST_PORT: String(ingestPort),
    INGEST_HMAC_SECRET: store.webhookSecret,
    INVENTORY_POST_PER_MINUTE: '100000',
    INVENTORY_GET_PER_MINUTE: '100000',
    INVENTORY_COLLECTION_PER_HOUR: '100000',
    INVENTORY_RATE_START_PERCENT: '100',
    WORKER_HTTP_PORT: '0',
    // 'worker started' is an info line.
    LOG_LEVEL: 'info',
    SHUTDOWN_GRACE_SECONDS: '2',
    // Short retries, as the test worlds have: a snapshot that comes before its order's is tried again soon.
    RETRY_BASE_DELAY_MS: '100',
    RETRY_MAX_DELAY_MS: '1000',
    ...o.env,
  };
  const world: StoreWorld = {
    sandbox,
    store,
    redis,
    prefix,
    env,
    ingestPort,
    subscribe() {
      for (const t of TOPICS) store.admin.subscribe(t, `http://127.0.0.1:${ingestPort}/ingest/orders`);
    },
    startWorker(extra = {}) {
      world.worker = startWorkerProcess({ ...env, ...extra });
      return world.worker;
    },
    async close() {
      await world.worker?.stop().catch(() => undefined);
      await store.close();
      await sandbox.close();
      await deletePrefix(redis, prefix);
      redis.disconnect();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return world;
}

export { liveLives, type LifeKind } from '../../../src/sandbox/shopify/store-lives.js';
