import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFeedServer, type FeedServer } from '../../src/feed/feed-server.js';
import { createRedis, deleteKeysUnder, formatClusterNodes, type RedisConnection } from '../../src/redis/connection.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { baseEnv } from '../cli/run-cli.js';
import { startWorkerProcess, type WorkerProcess } from '../cli/worker-process.js';
import { orderRecord, orderState } from '../helpers/order-records.js';
import { timePlannedFailover, type FailoverTiming } from '../kit/failover-timing.js';
import { primaryPort, roleOf, startLocalSentinel, type LocalSentinel } from '../kit/local-sentinel.js';
import { STREAMS } from '../../jobs/kinds.js';

const ORDERS = 300;
const ids = Array.from({ length: ORDERS }, (_, i) => `PF-${String(i + 1).padStart(3, '0')}`);
/** What a planned failover may cost: from `SENTINEL FAILOVER` to every job it caught running completed. */
const BOUND_S = 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, timeoutMs: number, check: () => boolean | Promise<boolean>): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what} within ${timeoutMs} ms`);
    await sleep(100);
  }
}

// A sentinel of its own: the project's is the other file's, whose primary it kills.
describe('through Redis Sentinel, a planned failover (SENTINEL FAILOVER) in the middle of a sync', () => {
  const hex = () => randomBytes(8).toString('hex');
  const secrets = { key: 'key-pl4n', secret: 'sec-pl4n-7e', token: 'tok-pl4n-1d' };
  const prefix = `test-planned-${hex()}`;
  let local: LocalSentinel;
  let sandbox: Sandbox;
  let feed: FeedServer;
  let worker: WorkerProcess;
  let timing: FailoverTiming;
  let doneAtFailover = 0;
  let primary: RedisConnection;
  const completed = () =>
    sandbox.admin.state().orders.filter((o) => o.orderId.startsWith('PF-') && o.statusId === 'ORDER_COMPLETED').length;

  beforeAll(async () => {
    local = await startLocalSentinel({ name: 'isync-planned', password: `data-${hex()}`, sentinelPassword: `sent-${hex()}` });
    sandbox = await startSandbox({ port: 0, data: 'demo', key: secrets.key, secret: secrets.secret, latency: { ms: 40, jitterMs: 10 } });
    feed = await startFeedServer({ names: STREAMS, port: 0, streams: { orders: ids.map((id) => orderRecord(id)) }, token: secrets.token });
    worker = startWorkerProcess({
      ...baseEnv(),
      REDIS_SENTINELS: formatClusterNodes([local.sentinel]),
      REDIS_SENTINEL_NAME: local.name,
      REDIS_SENTINEL_PASSWORD: local.sentinelPassword,
      REDIS_PASSWORD: local.password,
      QUEUE_PREFIX: prefix,
      INVENTORY_BASE_URL: sandbox.url,
      INVENTORY_ACCOUNT: sandbox.account,
      INVENTORY_API_KEY: secrets.key,
      INVENTORY_API_SECRET: secrets.secret,
      INVENTORY_POST_PER_MINUTE: '100000',
      INVENTORY_GET_PER_MINUTE: '100000',
      INVENTORY_COLLECTION_PER_HOUR: '100000',
      UPSTREAM_URL: feed.url,
      UPSTREAM_TOKEN: secrets.token,
      ORDER_POLL_SECONDS: '1',
      CATALOG_REFRESH_SECONDS: '0',
      RETRY_BASE_DELAY_MS: '100',
      RETRY_MAX_DELAY_MS: '1000',
      // Ten at once: the sync still runs, jobs completing all the time, through the second the failover takes.
      WORKER_CONCURRENCY: '10',
      WORKER_HTTP_PORT: '0',
      LOG_LEVEL: 'info',
    });
    await worker.httpUrl;
    await until('no order was synced', 30_000, () => completed() >= ORDERS / 5);

    doneAtFailover = completed();
    timing = await timePlannedFailover(local, { prefix, queue: 'orders' });
    console.log(
      `planned failover: ${timing.caught.length} jobs running at it; the next job completed on the new primary ` +
        `${timing.nextCompletedS} s after it, the last of those running ${timing.caughtCompletedS} s after it`,
    );
    primary = createRedis(`redis://:${local.password}@127.0.0.1:${timing.moved.to}`);
    await until(`the orders were not all synced after the failover (${completed()} of ${ORDERS})`, 90_000, () => completed() >= ORDERS);
    // Let anything that would run twice show itself.
    await sleep(1_500);
  }, 300_000);

  afterAll(async () => {
    if (worker && worker.child.exitCode === null) await worker.stop('SIGKILL');
    if (primary) await deleteKeysUnder(primary, prefix).catch(() => undefined);
    primary?.disconnect();
    await feed?.close();
    await sandbox?.close();
    await local?.stop();
  });

  it('fails over in the middle of the sync, the old primary turned replica of the new one', async () => {
    const { moved } = timing;
    expect(moved.to).not.toBe(moved.from);
    expect(await primaryPort(local)).toBe(moved.to);
    await until('the old primary did not turn replica', 20_000, async () => (await roleOf(local, moved.from).catch(() => '')) === 'slave');
    expect(doneAtFailover).toBeGreaterThan(0);
    expect(doneAtFailover).toBeLessThan(ORDERS);
    expect(timing.caught.length).toBeGreaterThan(0);
  });

  it(`goes on within ${BOUND_S} s: the jobs it caught running, and the next ones, completed on the new primary`, () => {
    expect(timing.nextCompletedS).toBeLessThanOrEqual(BOUND_S);
    expect(timing.caughtCompletedS).toBeLessThanOrEqual(BOUND_S);
  });

  it('syncs every order once: one order, completed, with one shipment, shipped', () => {
    const state = sandbox.admin.state();
    for (const id of ids) {
      const { orders, shipments } = orderState(state, id);
      expect(
        orders.map((o) => o.statusId),
        id,
      ).toEqual(['ORDER_COMPLETED']);
      expect(
        shipments.map((s) => s.statusId),
        id,
      ).toEqual(['SHIPMENT_SHIPPED']);
    }
    expect(state.orders.filter((o) => o.orderId.startsWith('PF-'))).toHaveLength(ORDERS);
  });

  it('loses no job: every one completed on the new primary, none failed or left waiting', async () => {
    const queue = new Queue('orders', { connection: primary, prefix });
    try {
      await until('jobs were left', 10_000, async () => (await queue.getJobCounts('completed')).completed === ORDERS);
      expect(await queue.getJobCounts('completed', 'failed', 'waiting', 'active', 'delayed')).toEqual({
        completed: ORDERS,
        failed: 0,
        waiting: 0,
        active: 0,
        delayed: 0,
      });
    } finally {
      await queue.close();
    }
  });

  it('goes on by itself, and stops cleanly when asked', async () => {
    expect(worker.child.exitCode).toBeNull();
    const exit = await worker.stop('SIGTERM');
    expect(exit.code, worker.stderr()).toBe(0);
  });
});
