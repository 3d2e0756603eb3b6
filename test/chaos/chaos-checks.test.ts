import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../config/read-config.js';
import { jobKinds } from '../../jobs/registry.js';
import { buildDeps, type AppDeps } from '../../src/app/build-deps.js';
import { startFeedServer, type FeedServer } from '../../src/feed/feed-server.js';
import { createLogger } from '../../src/logger.js';
import { syncOnce } from '../../src/queue/runtime.js';
import type { SandboxState } from '../../src/sandbox/sandbox-entities.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { checkLocks, checkQueues } from '../../bench/chaos/check-queues.js';
import { checkState } from '../../bench/chaos/check-state.js';
import type { CheckResult } from '../../bench/chaos/check-types.js';
import { buildScenario, type Scenario } from '../../bench/chaos/scenario.js';
import { connect, deletePrefix, redisUrl, uniquePrefix } from '../helpers/redis.js';

const CHUNK = 5;
const failing = (results: CheckResult[]) => results.filter((r) => r.violations.length > 0);
const named = (results: CheckResult[], start: string) => results.find((r) => r.name.startsWith(start));

/** The chaos run's rules, over a small scenario synced for real (sandbox, feed, Redis, the three jobs). */
describe('chaos checks', () => {
  let sandbox: Sandbox;
  let feed: FeedServer;
  let deps: AppDeps;
  let redis: Redis;
  let prefix: string;
  let scenario: Scenario;
  let initial: SandboxState;
  let final: SandboxState;

  beforeAll(async () => {
    scenario = buildScenario({ orders: 25, countsPerLocation: 2, countShare: 0.3, boms: 4, redeliveryRate: 0.2, badPerStream: 1, seed: 3 });
    sandbox = await startSandbox({ data: 'demo', account: 'chaos' });
    initial = sandbox.admin.state();
    feed = await startFeedServer({ streams: scenario.feed });
    prefix = uniquePrefix('chaos');
    redis = connect();
    const env = {
      INVENTORY_BASE_URL: sandbox.url,
      INVENTORY_ACCOUNT: sandbox.account,
      INVENTORY_API_KEY: sandbox.key,
      INVENTORY_API_SECRET: sandbox.secret,
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      UPSTREAM_URL: feed.url,
      VARIANCE_CHUNK_SIZE: String(CHUNK),
      // No budget to wait for: the rules are under test here, not the pacing.
      INVENTORY_POST_PER_MINUTE: '100000',
      INVENTORY_GET_PER_MINUTE: '100000',
    };
    deps = buildDeps(readConfig(env, { service: true, upstream: true }), createLogger({ level: 'silent' }), { redis });
    await syncOnce(deps, { kinds: jobKinds });
    final = sandbox.admin.state();
  }, 60_000);

  afterAll(async () => {
    await deps?.close();
    await deletePrefix(redis, prefix);
    redis.disconnect();
    await feed?.close();
    await sandbox?.close();
  });

  describe('when every record is synced once', () => {
    it('finds no violation in the service, the queues or the locks', async () => {
      const results = [...checkState(scenario, initial, final, CHUNK), ...(await checkQueues(redis, prefix, scenario)), await checkLocks(redis, prefix, 0)];
      expect(failing(results)).toEqual([]);
      expect(named(results, 'each good order exists once')?.checked).toBe(25);
    });
  });

  describe('when a variance was applied twice', () => {
    it('reports the identical pair and the stock that moved twice', () => {
      const broken = structuredClone(final);
      const twin = structuredClone(broken.variances[0]!);
      twin.physicalInventoryId = 'TWIN';
      broken.variances.push(twin);
      const item = twin.inventoryItemVarianceList[0]!;
      const row = broken.inventory.find((r) => r.facilityUrl === item.facilityUrl && r.productUrl === item.productUrl)!;
      row.quantityOnHand += item.quantityOnHandVar;
      const results = checkState(scenario, initial, broken, CHUNK);
      expect(named(results, 'no variance applied twice')?.violations).toHaveLength(1);
      expect(named(results, 'stock of counted products')?.violations.length).toBeGreaterThan(0);
    });
  });

  describe('when an order got a second shipment or stayed open', () => {
    it('reports both orders', () => {
      const broken = structuredClone(final);
      const extra = structuredClone(broken.shipments[0]!);
      extra.shipmentId = 'EXTRA';
      broken.shipments.push(extra);
      broken.orders[1]!.statusId = 'ORDER_CREATED';
      const results = checkState(scenario, initial, broken, CHUNK);
      expect(named(results, 'each good order has exactly one shipment')?.violations).toEqual([expect.stringContaining('2 shipments')]);
      expect(named(results, 'each good order exists once')?.violations).toEqual([expect.stringContaining('ORDER_CREATED')]);
    });
  });

  describe('when a BOM update added an entry instead of replacing it', () => {
    it('reports the parent with two MANUF_COMPONENT entries', () => {
      const broken = structuredClone(final);
      const parent = broken.products.find((p) => scenario.expectedBoms.has(p.productId))!;
      parent.productAssocList.push({ ...structuredClone(parent.productAssocList[0]!), productAssocUrl: '/chaos/api/productassoc/extra' });
      const results = checkState(scenario, initial, broken, CHUNK);
      expect(named(results, 'each BOM parent')?.violations).toEqual([expect.stringContaining('2 MANUF_COMPONENT entries')]);
    });
  });

  describe('when a lock key is left behind', () => {
    it('reports it once its wait is over', async () => {
      await redis.set(`${prefix}:lock:orders:STUCK`, 'x', 'PX', 60_000);
      const r = await checkLocks(redis, prefix, 0);
      await redis.del(`${prefix}:lock:orders:STUCK`);
      expect(r.violations).toEqual([expect.stringContaining(`${prefix}:lock:orders:STUCK`)]);
    });
  });
});
