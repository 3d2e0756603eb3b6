import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { programKinds } from '../../jobs/kinds.js';
import { orderKind } from '../../jobs/orders/order-kind.js';
import { buildDeps, type AppDeps } from '../../src/app/build-deps.js';
import { commandQueues } from '../../src/app/command-context.js';
import { readOnlyQueues } from '../../src/app/read-only-queues.js';
import { readOnlyRedis } from '../../src/app/read-only-redis.js';
import { runRecordJobs } from '../../src/app/run-jobs.js';
import { sandboxConfig } from '../../src/app/sandbox-config.js';
import { createLogger } from '../../src/log/logger.js';
import { addJobs, recordJob } from '../../src/queue/record-jobs.js';
import { orderRecord } from '../helpers/order-records.js';
import { redisSnapshot } from '../helpers/planned-calls.js';
import { redisTarget } from '../helpers/redis.js';
import { testWorld, type TestWorld } from '../helpers/test-world.js';

const logger = createLogger({ level: 'silent' });
const job = () => recordJob(orderKind, orderRecord('GUARD-1'), 'feed').job;

/** The parts of a dry run refuse what a command or a source forgot to plan: nothing is written, queued or moved. */
describe('the parts of a dry run', () => {
  let world: TestWorld;
  let deps: AppDeps;
  beforeAll(async () => {
    world = await testWorld('dry-parts', { streams: ['orders'], workers: false });
    await world.add('orders', [orderRecord('GUARD-0')]);
    const config = sandboxConfig(world.sandbox, { redis: redisTarget(), prefix: world.prefix, kinds: programKinds });
    deps = buildDeps(config, logger, { redis: world.redis, budget: false, kinds: programKinds, streams: ['orders'], dryRun: true });
  });
  afterAll(async () => {
    await deps?.close();
    await world?.close();
  });

  describe('when a command over them writes anyway (buildDeps dryRun, as openApp makes them for --dry-run)', () => {
    it('refuses the write to the service, the job, the worker and the cursor, and leaves Redis as it was', async () => {
      const before = await redisSnapshot(world.redis, world.prefix);
      const sent = world.sandbox.admin.requests().length;
      const order = {
        orderId: 'GUARD-1',
        orderTypeId: 'SALES_ORDER' as const,
        originFacilityUrl: '/demo/api/facility/10000',
        orderItemList: [],
      };
      await expect(deps.client.createOrder(order)).rejects.toMatchObject({ code: 'WRITE_REFUSED' });
      await expect(addJobs(deps.queues.get('orders'), deps.redis, [job()], orderKind)).rejects.toMatchObject({ code: 'WRITE_REFUSED' });
      await expect(runRecordJobs(deps, [job()], { kinds: programKinds })).rejects.toThrow('a dry run works no job');
      expect(() => deps.redis.set(deps.keys.cursor('orders'), 'moved')).toThrow(expect.objectContaining({ code: 'WRITE_REFUSED' }));
      expect(deps.dryRun).toBe(true);
      expect(world.sandbox.admin.requests().slice(sent)).toEqual([]);
      expect(await redisSnapshot(world.redis, world.prefix)).toEqual(before);
    });

    it('answers every read: the service, the queued jobs and their counts, Redis', async () => {
      expect((await deps.client.listFacilities()).length).toBeGreaterThan(0);
      const counts = await deps.queues.get('orders').getJobCounts('waiting');
      expect(counts.waiting).toBe(1);
      const [waiting] = await deps.queues.get('orders').getJobs(['waiting']);
      expect(waiting?.data.record).toMatchObject({ orderId: 'GUARD-0' });
      expect(await deps.redis.get(deps.keys.cursor('orders'))).toBeNull();
    });
  });

  describe('when a command queues without the service (commandQueues) in a dry run', () => {
    it('refuses the job, so that a source that forgot to plan queues nothing', async () => {
      const before = await redisSnapshot(world.redis, world.prefix);
      const config = sandboxConfig(world.sandbox, { redis: redisTarget(), prefix: world.prefix, kinds: programKinds });
      const sink = new Writable({ write: (_c, _e, done) => done() });
      const io = { env: {}, stdout: sink, stderr: sink, stdin: Readable.from([]), stop: new AbortController().signal, dryRun: true };
      const parts = await commandQueues(io, config, ['orders'], logger);
      try {
        await expect(addJobs(parts.queues.get('orders'), parts.redis, [job()], orderKind)).rejects.toMatchObject({ code: 'WRITE_REFUSED' });
      } finally {
        await parts.close();
      }
      expect(await redisSnapshot(world.redis, world.prefix)).toEqual(before);
    });
  });

  describe('when a read-only Redis is given a pipeline', () => {
    it('sends a pipeline of reads, chained or listed, and refuses one that would write before sending anything', async () => {
      const key = `${world.prefix}:guard-pipe`;
      await world.redis.set(key, 'v');
      const redis = readOnlyRedis(world.redis);
      expect(await redis.pipeline().get(key).exists(key).exec()).toEqual([
        [null, 'v'],
        [null, 1],
      ]);
      expect(await redis.pipeline([['get', key]]).exec()).toEqual([[null, 'v']]);
      expect(() => redis.pipeline().get(key).set(key, 'w')).toThrow(expect.objectContaining({ code: 'WRITE_REFUSED' }));
      expect(() =>
        redis.pipeline([
          ['get', key],
          ['del', key],
        ]),
      ).toThrow(/del/);
      expect(readOnlyRedis(redis)).toBe(redis);
      expect(await world.redis.get(key)).toBe('v');
    });
  });

  describe('when read-only queues are asked to change a queue', () => {
    it('refuses add, retry, pause and removal, and closes the queues underneath', async () => {
      const queues = readOnlyQueues(world.queues);
      const q = queues.get('orders');
      expect(q).toBe(queues.get('orders'));
      for (const change of [() => q.add('orders', job().data), () => q.retryJobs(), () => q.pause(), () => q.remove('x'), () => q.drain()])
        expect(change).toThrow(expect.objectContaining({ code: 'WRITE_REFUSED' }));
      expect(() =>
        queues.intake('orders').add('orders', { stream: 'orders', source: 'import', firstLine: 1, lastLine: 1, items: [] }),
      ).toThrow(/queues nothing/);
      expect(await q.count()).toBe(1);
    });
  });
});
