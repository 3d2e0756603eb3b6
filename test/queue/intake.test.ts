import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitForIdle } from '../../src/queue/drain.js';
import { importNdjson } from '../../src/feed/importer.js';
import { expandBatch } from '../../src/queue/intake.js';
import { intakeQueueName, type IntakeData } from '../../src/queue/intake-queue.js';
import { jobIdFor } from '../../src/queue/job-id.js';
import { recordJobOptions, type JobData } from '../../src/queue/queues.js';
import { badLineId } from '../../src/queue/record-jobs.js';
import type { WorkerPool } from '../../src/queue/worker-pool.js';
import { done, fastJobs, order, queueWorld, testKind, type QueueWorld } from './support.js';
import { orderKind } from '../../jobs/orders/order-kind.js';

let w: QueueWorld;
let dir: string;
const pools: WorkerPool[] = [];

beforeEach(async () => {
  w = await queueWorld('intake');
  dir = await mkdtemp(join(tmpdir(), 'intake-'));
});
afterEach(async () => {
  for (const p of pools.splice(0)) await p.close(100);
  await w.close();
  await rm(dir, { recursive: true, force: true });
});

const records = () => w.queues.get('orders');
const intake = () => w.queues.intake('orders');

async function ndjson(lines: string[]): Promise<string> {
  const file = join(dir, `orders-${Math.random().toString(36).slice(2)}.ndjson`);
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

const importFile = (file: string, batchSize = 10) =>
  importNdjson({ kind: orderKind, source: file, queues: w.queues, redis: w.redis, logger: w.logger, batchSize });

/** A pool whose orders kind notes each job it runs (id and data). */
async function startPool(seen: Array<{ id: string; data: JobData }> = []) {
  const kind = testKind('orders', async (record, ctx) => {
    seen.push({ id: ctx.jobId, data: { record, source: 'import' } });
    return done();
  });
  const pool = await w.startPool([kind], { concurrency: 4 });
  pools.push(pool);
  return pool;
}

// Long enough for 3,000 jobs on a loaded machine (CI beside other runs): the tests are about order, not speed.
const idle = () => waitForIdle([intake(), records()], { pollMs: 20, signal: AbortSignal.timeout(60_000) });

describe('import through intake batches', () => {
  it('writes one intake job per batch and no record job until a worker takes the batches', async () => {
    const file = await ndjson(Array.from({ length: 25 }, (_, i) => JSON.stringify(order(`WEB-${i + 1}`))));
    const result = await importFile(file);
    expect(result).toMatchObject({ records: 25, queued: 25, duplicates: 0, invalid: 0, batches: 3 });
    expect(await intake().getWaitingCount()).toBe(3);
    expect(await records().getJobCounts('waiting', 'active', 'completed', 'failed')).toEqual({
      waiting: 0,
      active: 0,
      completed: 0,
      failed: 0,
    });
    const batches = (await intake().getWaiting()) as Array<Job<IntakeData>>;
    expect(batches.map((b) => [b.data.firstLine, b.data.lastLine, b.data.items.length]).sort((a, b) => a[0]! - b[0]!)).toEqual([
      [1, 10, 10],
      [11, 20, 10],
      [21, 25, 5],
    ]);
    expect(JSON.stringify(batches.map((b) => b.data))).not.toContain(w.sandbox.secret);
  });

  it('closes a batch early once its records reach the size limit, so big records make small batches', async () => {
    const big = (i: number) => ({ ...order(`WEB-${i}`), shipmentIdUser: 'x'.repeat(2_000) });
    const file = await ndjson(Array.from({ length: 9 }, (_, i) => JSON.stringify(big(i + 1))));
    const result = await importNdjson({
      kind: orderKind,
      source: file,
      queues: w.queues,
      redis: w.redis,
      logger: w.logger,
      batchSize: 1_000,
      batchChars: 6_000,
    });
    // Each record is a little over 2,000 characters: three make a batch.
    expect(result).toMatchObject({ records: 9, queued: 9, batches: 3 });
    const batches = (await intake().getWaiting()) as Array<Job<IntakeData>>;
    expect(batches.map((b) => b.data.items.length)).toEqual([3, 3, 3]);
  });

  it('fans the batches out into exactly the jobs a direct add makes: same ids, records and lines', async () => {
    const good = Array.from({ length: 12 }, (_, i) => order(`WEB-${i + 1}`));
    const invalid = { orderId: 'WEB-BAD', origin: 'Main Warehouse', lines: [] };
    const lines = [...good.map((o) => JSON.stringify(o)), JSON.stringify(invalid), '{"orderId": "WEB-BROKEN",'];
    const result = await importFile(await ndjson(lines), 5);
    expect(result).toMatchObject({ records: 14, queued: 14, invalid: 2, malformed: 1, batches: 3 });

    const seen: Array<{ id: string; data: JobData }> = [];
    await startPool(seen);
    await idle();

    expect(seen.map((s) => s.id).sort()).toEqual(good.map((o) => jobIdFor(orderKind, o)).sort());
    for (const [i, o] of good.entries()) {
      const job = await records().getJob(jobIdFor(orderKind, o));
      expect(job?.data).toEqual({ record: o, source: 'import', line: i + 1 });
      // The options every record job gets: retries with the jittered backoff, kept once completed.
      expect(job?.opts).toMatchObject({ attempts: fastJobs.attempts, backoff: { type: 'jittered' } });
      expect(await job?.getState()).toBe('completed');
    }
    const bad = await records().getJob(jobIdFor(orderKind, invalid));
    expect(await bad?.getState()).toBe('failed');
    expect(bad?.failedReason).toMatch(/^\[BAD_RECORD\] record WEB-BAD: lines: must have at least one line/);
    const broken = await records().getJob(badLineId('orders', 14, '{"orderId": "WEB-BROKEN",', 'WEB-BROKEN'));
    expect(broken?.data).toMatchObject({
      record: '{"orderId": "WEB-BROKEN",',
      line: 14,
      parseError: expect.stringMatching(/^not valid JSON/),
    });
    expect(broken?.failedReason).toMatch(/^\[BAD_RECORD\] record WEB-BROKEN \(line 14\): \(line\): not valid JSON/);
    // Expanded batches leave the intake queue: their records are the jobs now.
    expect(await intake().getJobCounts('waiting', 'active', 'completed', 'failed')).toEqual({
      waiting: 0,
      active: 0,
      completed: 0,
      failed: 0,
    });
  });

  it('expands batches one at a time across processes, in the order they were imported', async () => {
    // Batches big enough that expanding one takes a while (two at once would overlap).
    const file = await ndjson(Array.from({ length: 3_000 }, (_, i) => JSON.stringify(order(`WEB-${i + 1}`))));
    await importFile(file, 500);
    // Two pools, as two worker processes would be: the intake queue lets one batch at a time be active.
    let mostActive = 0;
    let watching = true;
    const watch = (async () => {
      while (watching) {
        mostActive = Math.max(mostActive, await intake().getActiveCount());
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    await Promise.all([startPool(), startPool()]);
    expect(await intake().getGlobalConcurrency()).toBe(1);
    await idle();
    watching = false;
    await watch;
    expect(mostActive).toBe(1);
    const jobs = await records().getJobs(['completed'], 0, -1);
    expect(jobs).toHaveLength(3_000);
    // Every job of batch k was created no later than any job of batch k + 1.
    const byBatch = new Map<number, number[]>();
    for (const job of jobs) {
      const batch = Math.floor(((job.data as JobData).line! - 1) / 500);
      byBatch.set(batch, [...(byBatch.get(batch) ?? []), job.timestamp]);
    }
    for (let b = 0; b + 1 < 6; b++)
      expect(Math.max(...byBatch.get(b)!), `batch ${b + 1} before batch ${b + 2}`).toBeLessThanOrEqual(Math.min(...byBatch.get(b + 1)!));
  }, 90_000);

  it('changes nothing when a batch is expanded again (a worker killed before it could mark the batch done)', async () => {
    await importFile(await ndjson(Array.from({ length: 8 }, (_, i) => JSON.stringify(order(`WEB-${i + 1}`)))));
    const [batch] = (await intake().getWaiting()) as Array<Job<IntakeData>>;
    const target = new Queue<JobData>('orders', { connection: w.redis, prefix: w.prefix, defaultJobOptions: recordJobOptions(fastJobs) });
    try {
      expect(await expandBatch(batch!, target)).toMatchObject({ outcome: 'expanded', records: 8 });
      expect(await expandBatch(batch!, target)).toMatchObject({ outcome: 'expanded', records: 8 });
      expect(await records().getWaitingCount()).toBe(8);
      // And again once the records are done: completed jobs are not queued a second time.
      const seen: Array<{ id: string; data: JobData }> = [];
      await startPool(seen);
      await idle();
      expect(seen).toHaveLength(8);
      await expandBatch(batch!, target);
      expect(await records().getJobCounts('waiting', 'completed')).toEqual({ waiting: 0, completed: 8 });
    } finally {
      await target.close();
    }
  });

  it('counts a re-import as duplicates, whether its batches were expanded yet or not', async () => {
    const file = await ndjson([
      ...Array.from({ length: 15 }, (_, i) => JSON.stringify(order(`WEB-${i + 1}`))),
      JSON.stringify(order('WEB-1')),
    ]);
    // WEB-1 twice in the file: queued once.
    expect(await importFile(file)).toMatchObject({ records: 16, queued: 15, duplicates: 1, batches: 2 });
    // Not yet expanded: the same batches are there already.
    expect(await importFile(file)).toMatchObject({ records: 16, queued: 0, duplicates: 16, batches: 0 });
    expect(await intake().getWaitingCount()).toBe(2);
    await startPool();
    await idle();
    // Expanded and done: the records' jobs are there.
    expect(await importFile(file)).toMatchObject({ records: 16, queued: 0, duplicates: 16, batches: 0 });
    expect(await intake().getWaitingCount()).toBe(0);
    // A corrected record is new.
    const corrected = await ndjson([JSON.stringify(order('WEB-3', 5))]);
    expect(await importFile(corrected)).toMatchObject({ queued: 1, duplicates: 0, batches: 1 });
  });

  it('puts a failed batch back to work when the same file is imported again', async () => {
    const file = await ndjson(Array.from({ length: 4 }, (_, i) => JSON.stringify(order(`WEB-${i + 1}`))));
    await importFile(file);
    const [batch] = await intake().getWaiting();
    // As if Redis had failed its expansion on every attempt.
    const conn = w.redis.duplicate();
    const failing = new Worker(
      intakeQueueName('orders'),
      async () => {
        throw new UnrecoverableError("[TRANSIENT] intake job: could not queue the batch's records (Connection is closed.)");
      },
      { connection: conn, prefix: w.prefix },
    );
    try {
      while ((await intake().getJobState(batch!.id!)) !== 'failed') await new Promise((r) => setTimeout(r, 20));
    } finally {
      await failing.close();
      conn.disconnect();
    }
    expect(await importFile(file)).toMatchObject({ queued: 4, duplicates: 0 });
    expect(await intake().getJobState(batch!.id!)).toBe('waiting');
    await startPool();
    await idle();
    expect(await records().getCompletedCount()).toBe(4);
  });

  it('fails a batch that is not a batch of records, naming the job, and keeps it for operators', async () => {
    const q = new Queue(intakeQueueName('orders'), { connection: w.redis, prefix: w.prefix });
    try {
      // Retrying cannot mend it: it fails at once, whatever its attempts.
      await q.add(
        'orders',
        { stream: 'orders', source: 'import', firstLine: 1, lastLine: 2, items: 'nope' },
        { jobId: 'intake-orders-corrupt', attempts: 5 },
      );
      await startPool();
      await waitForIdle([intake()], { pollMs: 20, signal: AbortSignal.timeout(10_000) });
      const job = await intake().getJob('intake-orders-corrupt');
      expect(await job?.getState()).toBe('failed');
      expect(job?.failedReason).toMatch(/^\[BAD_BATCH\] intake job intake-orders-corrupt: not a batch of records \(items: /);
      expect(job?.attemptsMade).toBe(1);
    } finally {
      await q.close();
    }
  });
});
