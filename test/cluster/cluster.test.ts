import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { slotOwner } from '../kit/local-cluster.js';
import { createRedis, deleteKeysUnder, isCluster, type RedisConnection } from '../../src/redis/connection.js';
import { baseEnv, runCli } from '../cli/run-cli.js';
import { startStack, type Stack } from '../cli/stack.js';
import { orderRecord, orderState } from '../helpers/order-records.js';
import { redisEnv, redisTarget } from '../helpers/redis.js';
import { testWorld } from '../helpers/test-world.js';

const cluster = () => inject('redisCluster')!;
const seedUrl = () => `redis://:${cluster().password}@${cluster().seed.host}:${cluster().seed.port}`;

/** A QUEUE_PREFIX without a hash tag whose wrapped form `{p}` lives on another node than the seed. */
async function prefixOffTheSeed(name: string): Promise<string> {
  for (;;) {
    const p = `${name}-${randomBytes(3).toString('hex')}`;
    if ((await slotOwner(cluster().seed, `{${p}}`, cluster().password)).port !== cluster().seed.port) return p;
  }
}

const bom = { productId: 'SKU-0100', components: [{ productId: 'SKU-0101', quantity: 2 }] };

describe('on a Redis Cluster of three masters', () => {
  let redis: RedisConnection;
  beforeAll(() => {
    redis = createRedis(redisTarget());
  });
  afterAll(() => redis.disconnect());

  describe('when the test world runs on it (as the order, stock and BOM suites of this project do)', () => {
    it('uses a cluster connection, and a prefix whose slot is served by another node than the seed', async () => {
      const world = await testWorld('cluster-world', { streams: ['orders'] });
      try {
        expect(isCluster(world.redis)).toBe(true);
        expect((await slotOwner(cluster().seed, `${world.prefix}:orders:id`, cluster().password)).port).not.toBe(cluster().seed.port);
        await world.add('orders', [orderRecord('CL-1')]);
        await world.idle();
        expect(orderState(world.sandbox.admin.state(), 'CL-1').orders.map((o) => o.statusId)).toEqual(['ORDER_COMPLETED']);
      } finally {
        await world.close();
      }
    });
  });

  describe('when the CLI is given REDIS_CLUSTER_NODES and a QUEUE_PREFIX without a hash tag', () => {
    let stack: Stack;
    let prefix: string;
    beforeAll(async () => {
      stack = await startStack({ orders: [orderRecord('CLI-1'), orderRecord('CLI-2')], boms: [bom] }, 'cluster-cli');
      prefix = await prefixOffTheSeed('cluster-cli');
    });
    afterAll(async () => {
      await deleteKeysUnder(redis, `{${prefix}}`);
      await stack.close();
    });

    it('wraps the prefix in a hash tag, says so once at start, and syncs every record', async () => {
      // REDIS_URL points at nothing: with REDIS_CLUSTER_NODES it is not used.
      const env = { ...stack.env, ...redisEnv(), REDIS_URL: 'redis://127.0.0.1:1', QUEUE_PREFIX: prefix, LOG_LEVEL: 'info' };
      const r = await runCli(['sync', '--once'], env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('Every record synced.');
      const said = `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.includes(`QUEUE_PREFIX ${prefix} has no {hash tag}`));
      expect(said).toHaveLength(1);
      expect(said[0]).toContain(`{${prefix}}`);
      expect(
        stack.sandbox.admin
          .state()
          .orders.map((o: { orderId: string }) => o.orderId)
          .sort(),
      ).toEqual(['CLI-1', 'CLI-2']);
      // The password of REDIS_CLUSTER_NODES is in no line the program wrote.
      expect(`${r.stdout}${r.stderr}`).not.toContain(cluster().password!);

      const status = await runCli(['status', '--json'], env);
      expect(status.code, status.stderr).toBe(0);
      expect(`${status.stdout}${status.stderr}`).not.toContain(cluster().password!);
      const jobs = await runCli(['jobs', 'list', '--state', 'completed', '--json'], env);
      expect(jobs.code, jobs.stderr).toBe(0);
      expect(JSON.stringify(JSON.parse(jobs.stdout))).toContain('CLI-1');
    });

    it('reports a Redis error (exit 3, a hint to set REDIS_CLUSTER_NODES) when REDIS_URL points at one node instead', async () => {
      const env = { ...stack.env, REDIS_URL: seedUrl(), QUEUE_PREFIX: `{${prefix}}` };
      for (const args of [
        ['sync', '--once'],
        ['jobs', 'list'],
      ]) {
        const r = await runCli(args, env);
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(3);
        expect(r.stderr).toMatch(/^Redis failed: MOVED \d+ /m);
        expect(r.stderr).toContain('set REDIS_CLUSTER_NODES=');
        expect(r.stderr).not.toContain('the service could not be reached');
      }
    });
  });

  describe('when REDIS_CLUSTER_NODES names a Redis that is not a cluster', () => {
    it('says so, with exit 3', async () => {
      const single = new URL(inject('redisUrl'));
      const r = await runCli(['jobs', 'list'], { ...baseEnv(), REDIS_CLUSTER_NODES: `${single.hostname}:${single.port || 6379}` });
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toContain('Redis could not be reached at the Redis Cluster of');
      expect(r.stderr).toContain('not a cluster');
    });
  });

  describe('when the keys of a prefix without a hash tag are spread over the masters', () => {
    it('deletes them from every master', async () => {
      const prefix = `spread-${randomBytes(3).toString('hex')}`;
      const keys = Array.from({ length: 30 }, (_, i) => `${prefix}:k${i}`);
      for (const k of keys) await redis.set(k, '1');
      const owners = new Set(await Promise.all(keys.map(async (k) => (await slotOwner(cluster().seed, k, cluster().password)).port)));
      expect(owners.size).toBe(3);
      expect(await deleteKeysUnder(redis, prefix)).toBe(keys.length);
      expect(await Promise.all(keys.map((k) => redis.exists(k)))).toEqual(keys.map(() => 0));
    });
  });
});
