import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFeedServer, type FeedServer } from '../../src/feed/feed-server.js';
import { createRedis, deleteKeysUnder, type RedisConnection } from '../../src/redis/connection.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { baseEnv, runCli } from '../cli/run-cli.js';
import { startWorkerProcess, type WorkerProcess } from '../cli/worker-process.js';
import { orderRecord, orderState } from '../helpers/order-records.js';
import { redisEnv, redisTarget } from '../helpers/redis.js';
import { killPrimary, primaryPort } from '../kit/local-sentinel.js';
import { STREAMS } from '../../jobs/kinds.js';

const sentinel = () => inject('redisSentinel')!;
const ORDERS = 300;
const ids = Array.from({ length: ORDERS }, (_, i) => `SF-${String(i + 1).padStart(3, '0')}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, timeoutMs: number, check: () => boolean | Promise<boolean>): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what} within ${timeoutMs} ms`);
    await sleep(100);
  }
}

describe('through Redis Sentinel', () => {
  describe('when the primary dies in the middle of a sync and Sentinel promotes the replica', () => {
    const secrets = { key: 'key-s3nt', secret: 'sec-s3nt-9f', token: 'tok-s3nt-2c' };
    const prefix = `test-sentinel-${randomBytes(4).toString('hex')}`;
    let sandbox: Sandbox;
    let feed: FeedServer;
    let worker: WorkerProcess;
    let redis: RedisConnection;
    let moved: { from: number; to: number };
    let doneAtFailover = 0;
    let exit: { code: number | null };
    const completed = () =>
      sandbox.admin.state().orders.filter((o) => o.orderId.startsWith('SF-') && o.statusId === 'ORDER_COMPLETED').length;

    beforeAll(async () => {
      sandbox = await startSandbox({ port: 0, data: 'demo', key: secrets.key, secret: secrets.secret, latency: { ms: 15, jitterMs: 10 } });
      feed = await startFeedServer({
        names: STREAMS,
        port: 0,
        streams: { orders: ids.map((id) => orderRecord(id)) },
        token: secrets.token,
      });
      redis = createRedis(redisTarget());
      // The outage is the worker's to report; this connection of the test's only waits through it.
      redis.on('error', () => undefined);
      worker = startWorkerProcess({
        ...baseEnv(),
        ...redisEnv(),
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
        WORKER_HTTP_PORT: '0',
        LOG_LEVEL: 'info',
      });
      await worker.httpUrl;
      await until('no order was synced', 30_000, () => completed() >= ORDERS / 5);
      doneAtFailover = completed();
      moved = await killPrimary(sentinel());
      await until(`the orders were not all synced after the failover (${completed()} of ${ORDERS})`, 60_000, () => completed() >= ORDERS);
      // Let anything that would run twice show itself.
      await sleep(1_500);
    }, 120_000);

    afterAll(async () => {
      if (worker && worker.child.exitCode === null) await worker.stop('SIGKILL');
      await deleteKeysUnder(redis, prefix).catch(() => undefined);
      redis?.disconnect();
      await feed?.close();
      await sandbox?.close();
    });

    it('fails over in the middle of the sync: the sentinel names the replica the primary', async () => {
      expect(moved.to).not.toBe(moved.from);
      expect(await primaryPort(sentinel())).toBe(moved.to);
      expect(doneAtFailover).toBeGreaterThan(0);
      expect(doneAtFailover).toBeLessThan(ORDERS);
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
      expect(state.orders.filter((o) => o.orderId.startsWith('SF-'))).toHaveLength(ORDERS);
    });

    it('loses no job: every one completed on the new primary, none failed or left waiting', async () => {
      const queue = new Queue('orders', { connection: redis, prefix });
      try {
        const counts = await queue.getJobCounts('completed', 'failed', 'waiting', 'active', 'delayed');
        expect(counts).toEqual({ completed: ORDERS, failed: 0, waiting: 0, active: 0, delayed: 0 });
      } finally {
        await queue.close();
      }
    });

    it('goes on by itself, and stops cleanly when asked, the passwords in no line it wrote', async () => {
      expect(worker.child.exitCode).toBeNull();
      exit = await worker.stop('SIGTERM');
      expect(exit.code, worker.stderr()).toBe(0);
      const out = `${worker.stdoutLines.join('\n')}${worker.stderr()}`;
      for (const pw of [sentinel().password, sentinel().sentinelPassword, secrets.secret, secrets.token]) expect(out).not.toContain(pw);
    });
  });

  describe('when the sentinels know no primary by the name given', () => {
    it('says where it looked and what to fix (exit 3), without a password', async () => {
      const r = await runCli(['jobs', 'list'], { ...baseEnv(), ...redisEnv(), REDIS_SENTINEL_NAME: 'no-such-primary' });
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toContain('Redis could not be reached at the primary "no-such-primary" of the sentinels 127.0.0.1:');
      expect(r.stderr).toContain('REDIS_SENTINEL_NAME');
      for (const pw of [sentinel().password, sentinel().sentinelPassword]) expect(r.stderr).not.toContain(pw);
    });
  });
});
