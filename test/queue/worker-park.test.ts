import { Worker } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitForIdle } from '../../src/queue/drain.js';
import { addJobs, recordJob } from '../../src/queue/record-jobs.js';
import type { StartWorkersOptions, WorkerPool } from '../../src/queue/worker-pool.js';
import { createRedis } from '../../src/redis/connection.js';
import { orderKind } from '../../jobs/orders/order-kind.js';
import { until } from '../kit/until.js';
import { done, order, queueWorld, sleep, testKind, type QueueWorld } from './support.js';

// Parked workers (src/queue/worker-park.ts): an idle worker is closed, its connection with it, and one doorbell
// connection of the pool starts it again when work comes. Real Redis, real BullMQ.

let w: QueueWorld;
const pools: WorkerPool[] = [];
const closers: Array<() => Promise<unknown>> = [];

beforeEach(async () => {
  w = await queueWorld('park');
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => undefined);
  for (const p of pools.splice(0)) await p.close(100);
  await w.close();
});

const q = () => w.queues.get('orders');
const ordersName = () => `${w.prefix}:${Buffer.from('orders').toString('base64')}`;

/** The connections of this test's prefix by what they are (BullMQ names its workers' blocking ones after the queue). */
async function connections(): Promise<{ orders: number; workers: number; bell: number; bellBlocked: boolean }> {
  const lines = ((await w.redis.client('LIST')) as string).split('\n').filter((l) => l.includes(`name=${w.prefix}:`));
  const bell = lines.filter((l) => l.includes(`name=${w.prefix}:park-bell `));
  const pool = lines.filter((l) => l.includes(`name=${w.prefix}:pool `));
  return {
    orders: lines.filter((l) => l.includes(`name=${ordersName()} `)).length,
    workers: lines.length - bell.length - pool.length,
    bell: bell.length,
    bellBlocked: bell.some((l) => l.includes('cmd=bzpopmin')),
  };
}

/** A pool of the orders stream whose idle workers park after 300 ms; `starts` has each run's start time. */
async function parkingPool(o: Partial<StartWorkersOptions> = {}) {
  const starts: Array<{ id: string; at: number }> = [];
  const pool = await w.startPool(
    [
      testKind('orders', async (record: { orderId: string }) => {
        starts.push({ id: record.orderId, at: Date.now() });
        return done();
      }),
    ],
    { park: { afterMs: 300 }, ...o },
  );
  pools.push(pool);
  return { pool, starts };
}

/** Both workers of the pool (record and intake) closed, the doorbell waiting on their queues. */
async function parked(extraOrders = 0): Promise<void> {
  await until(
    async () => {
      const c = await connections();
      return c.workers === extraOrders && c.orders === extraOrders && c.bell === 1 && c.bellBlocked;
    },
    5_000,
    { what: 'workers parked' },
  );
}

const job = (id: string) => recordJob(orderKind, order(id), 'feed').job;

describe('parked workers', () => {
  it('closes idle workers, and a job added later starts at once', async () => {
    const watched: string[] = [];
    const { pool, starts } = await parkingPool();
    pool.eachWorker((_, stream) => watched.push(stream));
    expect((await connections()).workers).toBe(2);
    await parked();
    // Parked is fine for readiness: the worker starts again when work comes.
    expect(pool.running()).toBe(true);
    const added = Date.now();
    await addJobs(q(), w.redis, [job('WEB-1')], orderKind);
    await until(() => starts.length === 1, 5_000, { what: 'the job started' });
    expect(starts[0]!.at - added).toBeLessThan(1_500);
    await waitForIdle([q()], { pollMs: 50 });
    expect(await q().getCompletedCount()).toBe(1);
    // The worker made again is the pool's worker now, and is watched as the first was (metrics).
    expect(watched).toEqual(['orders', 'orders']);
    expect(pool.workers.get('orders')!.isRunning()).toBe(true);
    // Idle again: parked again.
    await parked();
  });

  it('runs a delayed job added while parked when it falls due, not before', async () => {
    const { starts } = await parkingPool();
    await parked();
    const j = job('WEB-2');
    const added = Date.now();
    await q().add(j.name, j.data, { ...j.opts, delay: 1_000 });
    await until(() => starts.length === 1, 5_000, { what: 'the delayed job started' });
    expect(starts[0]!.at - added).toBeGreaterThanOrEqual(1_000);
    expect(starts[0]!.at - added).toBeLessThan(1_000 + 1_500);
  });

  it('takes back a job left active by a process that died while the worker was parked', async () => {
    const timing = { lockDurationMs: 400, stalledIntervalMs: 400 };
    const { starts } = await parkingPool(timing);
    // Another process's worker, blocked on the queue's marker before the doorbell: it takes the job, then dies.
    const dying = new Worker('orders', () => new Promise<never>(() => undefined), {
      connection: createRedis(w.url),
      prefix: w.prefix,
      lockDuration: 400,
      drainDelay: 60,
      skipStalledCheck: true,
    });
    dying.on('error', () => undefined);
    closers.push(() => dying.close(true));
    let taken = false;
    dying.on('active', () => (taken = true));
    await dying.waitUntilReady();
    await parked(1);
    await addJobs(q(), w.redis, [job('WEB-3')], orderKind);
    await until(() => taken, 5_000, { what: 'the dying worker took the job' });
    await dying.close(true);
    const died = Date.now();
    expect(await q().getActiveCount()).toBe(1);
    await until(() => starts.length === 1, 10_000, { what: 'the job taken back' });
    // The doorbell's look (400 ms) starts the worker; its stalled-job check marks the job, then takes it back.
    expect(starts[0]!.at - died).toBeLessThan(3_000);
    expect(starts.map((s) => s.id)).toEqual(['WEB-3']);
    await waitForIdle([q()], { pollMs: 50 });
    expect(await q().getCompletedCount()).toBe(1);
  });

  it('starts a parked worker for an active job whose marker never came (the doorbell looks every stalled interval)', async () => {
    // BullMQ writes a marker whenever a worker takes a job (above, that woke the parked worker at once); here a job is
    // put in active as a dead process would have left it, with no marker: paused, added, moved, resumed with wait empty.
    const { starts } = await parkingPool({ lockDurationMs: 400, stalledIntervalMs: 400 });
    await parked();
    await q().pause();
    const { job: added } = recordJob(orderKind, order('WEB-5'), 'feed');
    await q().add(added.name, added.data, added.opts);
    const id = added.opts.jobId;
    expect(await w.redis.rpoplpush(q().toKey('wait'), q().toKey('active'))).toBe(id);
    await w.redis.set(`${q().toKey(id)}:lock`, 'a-dead-process', 'PX', 400);
    await q().resume();
    expect(await w.redis.zcard(q().toKey('marker'))).toBe(0);
    const left = Date.now();
    await until(() => starts.length === 1, 10_000, { what: 'the active job taken back' });
    // A look (400 ms) starts the worker; its stalled-job check marks the job, then takes it back (400 ms later).
    expect(starts[0]!.at - left).toBeLessThan(3_000);
    await waitForIdle([q()], { pollMs: 50 });
    expect(await q().getCompletedCount()).toBe(1);
  });

  it('runs a job added while the queue was paused once it is resumed, not before', async () => {
    const { starts } = await parkingPool({ stalledIntervalMs: 200 });
    await parked();
    await q().pause();
    await addJobs(q(), w.redis, [job('WEB-4')], orderKind);
    // Several of the doorbell's looks: a paused queue's waiting job starts no worker.
    await sleep(1_000);
    expect(starts).toEqual([]);
    expect((await connections()).workers).toBe(0);
    const resumed = Date.now();
    await q().resume();
    await until(() => starts.length === 1, 5_000, { what: 'the job started after resume' });
    expect(starts[0]!.at - resumed).toBeLessThan(1_500);
  });

  it('loses no job added while workers park and start again, over and over', async () => {
    // Parks after 40 ms idle: jobs come while workers close, while parked, while they start again.
    const { starts } = await parkingPool({ park: { afterMs: 40 } });
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      ids.push(`RACE-${i}`);
      await addJobs(q(), w.redis, [job(`RACE-${i}`)], orderKind);
      await sleep((i * 37) % 110);
    }
    await until(() => starts.length >= ids.length, 10_000, { what: 'every job run' });
    expect(starts.map((s) => s.id).sort()).toEqual([...ids].sort());
    await waitForIdle([q()], { pollMs: 50 });
    expect(await q().getCompletedCount()).toBe(ids.length);
  });

  it('closes promptly with parked workers and the doorbell waiting, leaving no connection open', async () => {
    const { pool } = await parkingPool();
    await parked();
    const started = Date.now();
    expect(await pool.close(5_000)).toEqual({ forced: false });
    pools.length = 0;
    expect(Date.now() - started).toBeLessThan(2_000);
    await until(async () => (await connections()).workers + (await connections()).bell === 0, 1_000, { what: 'connections closed' });
    expect(await w.redis.keys(`${w.prefix}:park-bell:*`)).toEqual([]);
  });

  it('keeps every worker open without park (the default)', async () => {
    const pool = await w.startPool([testKind('orders', async () => done())]);
    pools.push(pool);
    await sleep(800);
    const c = await connections();
    expect(c.workers).toBe(2);
    expect(c.bell).toBe(0);
    expect(pool.running()).toBe(true);
  });
});
