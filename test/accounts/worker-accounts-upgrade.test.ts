import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from 'bullmq';
import { orderKind } from '../../jobs/orders/order-kind.js';
import { recordJob } from '../../src/queue/record-jobs.js';
import { recordJobOptions } from '../../src/queue/queues.js';
import { orderRecord, orderState } from '../helpers/order-records.js';
import { eventually, type WorkerProcess } from '../cli/worker-process.js';
import { accountsWorld, logLines, type AccountsWorld } from './accounts-kit.js';
import { redisUrl } from '../helpers/redis.js';
import { Redis } from 'ioredis';

/**
 * Issue 56, upgrade in place: jobs the released version left in an account's queues (it ran every account's workers in
 * every process, and marked nothing) run once under the turns: a job waiting, one delayed (a retry due later) and one
 * active whose process died mid-job (its lock runs out). No mark told of them: the sweep at start finds them.
 */
let world: AccountsWorld;
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  world = await accountsWorld('accounts-upgrade');
  const acme = await world.add('acme');
  await world.add('globex');
  // No feed for either: the jobs in Redis are all the work there is (a pulled page would mark the account itself).
  for (const a of world.accounts.values()) {
    delete a.settings.UPSTREAM_URL;
    delete a.settings.UPSTREAM_TOKEN;
  }
  world.writeFile(['acme', 'globex']);
  // The released version's jobs, added as it added them (no mark in the ready set).
  const queue = new Queue('orders', { connection: world.redis, prefix: acme.prefix, defaultJobOptions: recordJobOptions({ attempts: 5 }) });
  const job = (id: string) => recordJob(orderKind, orderRecord(id), 'feed').job;
  await queue.add(job('UP-ACTIVE').name, job('UP-ACTIVE').data, job('UP-ACTIVE').opts);
  // A worker of the released version takes UP-ACTIVE (the only one in line) and dies in the middle of it: its lock of
  // 1 s runs out, and the job stays active until a stalled check takes it back.
  const conn = new Redis(redisUrl(), { maxRetriesPerRequest: null });
  let took: (() => void) | undefined;
  const taken = new Promise<void>((r) => (took = r));
  const dying = new Worker('orders', async () => (took!(), new Promise(() => undefined)), {
    connection: conn,
    prefix: acme.prefix,
    // As the released version ran it (JOB_LOCK_SECONDS: its lock and its stalled checks; BullMQ checks a queue once an
    // interval, whichever worker asks).
    lockDuration: 1_000,
    stalledInterval: 1_000,
    autorun: false,
  });
  void dying.run();
  await taken;
  await dying.close(true);
  conn.disconnect();
  await queue.add(job('UP-WAITING').name, job('UP-WAITING').data, job('UP-WAITING').opts);
  await queue.add(job('UP-DELAYED').name, job('UP-DELAYED').data, { ...job('UP-DELAYED').opts, delay: 2_000 });
  await queue.close();
});
afterAll(async () => {
  await world?.close();
});

describe('worker with ACCOUNTS_FILE over the released version’s queues', () => {
  it('runs every job left in them once: waiting, delayed and active with its process gone', async () => {
    const acme = world.accounts.get('acme')!;
    const counts = await acme.orders.getJobCounts('waiting', 'delayed', 'active');
    expect(counts).toEqual({ waiting: 1, delayed: 1, active: 1 });
    worker = world.startWorker({ JOB_LOCK_SECONDS: '2' });
    await eventually(async () => (await acme.orders.getJobCounts('completed')).completed === 3, 20_000, 'the three jobs completed');
    const state = acme.sandbox.admin.state();
    for (const id of ['UP-WAITING', 'UP-DELAYED', 'UP-ACTIVE']) expect(orderState(state, id).orders).toHaveLength(1);
    // The other account had nothing and opened nowhere.
    const globex = world.accounts.get('globex')!;
    expect(((await world.redis.client('LIST')) as string).includes(`name=${globex.prefix}:`)).toBe(false);
    expect(logLines(worker).some((l) => String(l.msg).includes('could not'))).toBe(false);
  });
});
