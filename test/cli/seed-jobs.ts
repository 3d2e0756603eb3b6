import { createHash, randomBytes } from 'node:crypto';
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { recordFailureGroup } from '../../src/queue/failure-group.js';
import { expandBatch } from '../../src/queue/intake.js';
import { intakeJobId, intakeQueueName, openIntakeQueue, type IntakeData } from '../../src/queue/intake-queue.js';
import { jobIdFor } from '../../src/queue/job-id.js';
import type { JobData } from '../../src/queue/queues.js';
import type { StreamName } from '../../src/records/stream-name.js';
import { stockCountKind } from '../../jobs/stock/stock-count-kind.js';

/** Job id of contract 3: {stream}-{key}-{first 12 hex of sha256 of the record's JSON}. */
export function jobIdOf(stream: string, key: string, record: unknown): string {
  return `${stream}-${key}-${createHash('sha256').update(JSON.stringify(record)).digest('hex').slice(0, 12)}`;
}

export const goodOrder = {
  orderId: 'WEB-1',
  origin: 'Main Warehouse',
  lines: [{ productId: 'MUG-BLUE', quantity: 2, unitPrice: 12.5, location: 'Main Warehouse / A-01' }],
};
export const badOrder = {
  orderId: 'WEB-2',
  origin: 'Main Warehouse',
  lines: [{ productId: 'NO-SUCH', quantity: 1, unitPrice: 3, location: 'Main Warehouse / A-01' }],
};
export const waitingCount = {
  countId: 'CNT-1',
  location: 'Main Warehouse / A-01',
  countDate: '2026-11-21',
  items: [{ productId: 'MUG-BLUE', quantity: 4 }],
};

export interface Seeded {
  completedId: string;
  failedId: string;
  waitingId: string;
}

/**
 * Puts jobs in three states through real BullMQ, each attempt logged and its failure group recorded as the runner
 * does (contract 3):
 * WEB-1 completes, WEB-2 fails for an unknown product, CNT-1 waits.
 */
export async function seedJobs(redis: Redis, prefix: string): Promise<Seeded> {
  const orders = new Queue('orders', { connection: redis, prefix });
  const counts = new Queue('stock-counts', { connection: redis, prefix });
  const completedId = jobIdOf('orders', 'WEB-1', goodOrder);
  const failedId = jobIdOf('orders', 'WEB-2', badOrder);
  const waitingId = jobIdOf('stock-counts', 'CNT-1', waitingCount);
  await orders.add('orders', { record: goodOrder, source: 'feed' }, { jobId: completedId, attempts: 3 });
  await orders.add('orders', { record: badOrder, source: 'import' }, { jobId: failedId, attempts: 3 });
  await counts.add('stock-counts', { record: waitingCount, source: 'feed' }, { jobId: waitingId });

  let finished = 0;
  const workerConnection = redis.duplicate();
  const worker = new Worker(
    'orders',
    async (job: Job) => {
      const startedAt = new Date().toISOString();
      const call = { method: 'POST', path: '/demo/api/order', cls: 'post', status: 200, ms: 12, waitedMs: 0, at: Date.now() };
      if (job.id === completedId) {
        const result = { outcome: 'synced', summary: 'order WEB-1 created, shipped and completed' };
        await job.log(JSON.stringify({ attempt: job.attemptsMade + 1, startedAt, ms: 40, calls: [call], notes: [], result }));
        return result;
      }
      const error = {
        name: 'BadRecordError',
        code: 'BAD_RECORD',
        message: 'record WEB-2: lines.0.productId: unknown product NO-SUCH',
        hint: 'Add the product to the service, then retry the job.',
        retryable: false,
      };
      const get = { method: 'GET', path: '/demo/api/product', cls: 'collection', status: 200, ms: 30, waitedMs: 5, at: Date.now() };
      await job.log(
        JSON.stringify({
          attempt: job.attemptsMade + 1,
          startedAt,
          ms: 35,
          calls: [get],
          notes: [{ at: startedAt, message: 'catalog refreshed after a miss' }],
          error,
        }),
      );
      await recordFailureGroup(redis, job, 'lines.0.productId: unknown product NO-SUCH');
      throw new UnrecoverableError(`[BAD_RECORD] ${error.message}`);
    },
    // Per-minute metrics as the program's workers keep them (the dashboard's "in the last hour" reads them).
    { connection: workerConnection, prefix, autorun: false, metrics: { maxDataPoints: 60 } },
  );
  const done = new Promise<void>((resolve) => {
    const tick = () => (++finished === 2 ? resolve() : undefined);
    worker.on('completed', tick);
    worker.on('failed', tick);
  });
  void worker.run();
  await done;
  await worker.close();
  workerConnection.disconnect();
  await orders.close();
  await counts.close();
  return { completedId, failedId, waitingId };
}

/** An import batch as `import` writes it: stock counts on the stock-counts intake queue, waiting for a worker. */
export async function seedWaitingBatch(redis: Redis, prefix: string, counts: unknown[] = [waitingCount]): Promise<string> {
  const intake = openIntakeQueue(redis, prefix, 'stock-counts', { attempts: 3 });
  const items = counts.map((c, i) => ({ id: jobIdFor(stockCountKind, c), line: i + 1, text: JSON.stringify(c) }));
  const id = intakeJobId('stock-counts', items);
  await intake.add(
    'stock-counts',
    { stream: 'stock-counts', source: 'import', firstLine: 1, lastLine: items.length, items },
    { jobId: id },
  );
  await intake.close();
  return id;
}

/**
 * An intake job whose data is no batch (`items: 'nope'`) on the stream's intake queue, failed by a real BullMQ worker
 * that expands it as the worker pool does. Seed it before any waiting batch of the stream: the worker takes those too.
 */
export async function seedFailedBatch(redis: Redis, prefix: string, stream: StreamName): Promise<string> {
  const intake = new Queue(intakeQueueName(stream), { connection: redis, prefix });
  const records = new Queue<JobData>(stream, { connection: redis, prefix });
  const id = `intake-${stream}-${randomBytes(6).toString('hex')}`;
  await intake.add(stream, { stream, source: 'import', firstLine: 1, lastLine: 3, items: 'nope' }, { jobId: id, attempts: 1 });
  const workerConnection = redis.duplicate();
  const worker = new Worker<IntakeData>(intake.name, (job) => expandBatch(job, records), {
    connection: workerConnection,
    prefix,
    autorun: false,
  });
  const failed = new Promise<void>((resolve) => worker.on('failed', (job) => (job?.id === id ? resolve() : undefined)));
  void worker.run();
  await failed;
  await worker.close();
  workerConnection.disconnect();
  await Promise.all([intake.close(), records.close()]);
  return id;
}
