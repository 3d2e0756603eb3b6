import { Queue, Worker, type Job } from 'bullmq';
import { ReplyError, type Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { guardFinishes, type FinishGuard } from '../../src/queue/finish-guard.js';
import { createRedis, deleteKeysUnder } from '../../src/redis/connection.js';
import { captureOut } from '../helpers/out-stream.js';
import { redisUrl, uniquePrefix } from '../helpers/redis.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what} within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** How a run ended, as the processor saw it. */
interface Run {
  id: string;
  token: string;
  processedOn: number;
}

// A failover cannot be had on one server: the test writes back what the old primary would have dropped (the job
// active again under the ended run's lock), then drops the worker's connection for real.
describe('finish guard', () => {
  let prefix: string;
  let conn: Redis;
  let admin: Redis;
  let queue: Queue;
  let worker: Worker;
  let guard: FinishGuard;
  let runs: Run[];
  let failFirst: boolean;
  const out = captureOut(false);

  beforeEach(async () => {
    prefix = uniquePrefix('guard');
    conn = createRedis(redisUrl());
    admin = createRedis(redisUrl());
    queue = new Queue('q', { connection: admin, prefix });
    runs = [];
    failFirst = false;
    guard = guardFinishes({ conn, lockDurationMs: 30_000, logger: createLogger({ destination: out.stream }) });
    const processor = guard.wrap(async (job: Job, token?: string) => {
      runs.push({ id: job.id!, token: token!, processedOn: job.processedOn! });
      if (failFirst && runs.length === 1) throw new Error('first run fails');
      return { n: runs.length };
    });
    worker = new Worker('q', processor, { connection: conn, prefix });
    worker.on('error', () => undefined);
    await worker.waitUntilReady();
  });

  afterEach(async () => {
    await worker.close(true);
    guard.stop();
    await queue.close();
    await deleteKeysUnder(admin, prefix);
    conn.disconnect();
    admin.disconnect();
  });

  /** The job as the old primary's replica holds it: active, its finish not there, the run's lock still on it. */
  async function dropFinish(run: Run, from: 'completed' | 'failed') {
    const key = `${prefix}:q:${run.id}`;
    await admin
      .multi()
      .zrem(`${prefix}:q:${from}`, run.id)
      .lpush(`${prefix}:q:active`, run.id)
      .set(`${key}:lock`, run.token, 'PX', 30_000)
      .hdel(key, 'finishedOn', 'returnvalue', 'failedReason')
      .hset(key, 'processedOn', String(run.processedOn))
      .exec();
  }

  describe('when a completion was dropped with the old primary', () => {
    it('completes the job again with the same result once the connection is back, without running it again', async () => {
      const job = await queue.add('x', {});
      await until('the job did not complete', async () => (await job.getState()) === 'completed');
      await dropFinish(runs[0]!, 'completed');
      expect(await queue.getJobState(job.id!)).toBe('active');

      conn.disconnect(true);
      await until('the job was not completed again', async () => (await queue.getJobState(job.id!)) === 'completed');
      expect((await queue.getJob(job.id!))?.returnvalue).toEqual({ n: 1 });
      expect(runs).toHaveLength(1);
      const line = out.lines().find((l) => l.includes('completedAgain'));
      expect(JSON.parse(line!)).toMatchObject({ completedAgain: 1, putBack: 0, queues: ['q'] });
    });
  });

  describe('when Redis refused the completion (full: OOM)', () => {
    it('completes the job again with the same result within seconds, with no connection dropped', async () => {
      const job = await queue.add('x', {});
      await until('the job did not complete', async () => (await job.getState()) === 'completed');
      // What a refused finish leaves: the job active under the ended run's lock; BullMQ reports the refusal as an error.
      await dropFinish(runs[0]!, 'completed');
      guard.noteError(new ReplyError("OOM command not allowed when used memory > 'maxmemory'."));
      const t = Date.now();
      await until('the job was not completed again', async () => (await queue.getJobState(job.id!)) === 'completed');
      expect(Date.now() - t).toBeLessThan(5_000);
      expect((await queue.getJob(job.id!))?.returnvalue).toEqual({ n: 1 });
      expect(runs).toHaveLength(1);
      expect(out.lines().some((l) => l.includes('while Redis refused writes made again'))).toBe(true);
    });

    it('does nothing for an error that is not a refusal from Redis', async () => {
      const job = await queue.add('x', {});
      await until('the job did not complete', async () => (await job.getState()) === 'completed');
      await dropFinish(runs[0]!, 'completed');
      guard.noteError(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
      await sleep(3_000);
      expect(await queue.getJobState(job.id!)).toBe('active');
    });
  });

  describe('when a failure was dropped with the old primary', () => {
    it('puts the job back to wait, and it runs again', async () => {
      failFirst = true;
      const job = await queue.add('x', {}, { attempts: 1 });
      await until('the job did not fail', async () => (await job.getState()) === 'failed');
      await dropFinish(runs[0]!, 'failed');

      conn.disconnect(true);
      await until('the job did not run again', async () => (await queue.getJobState(job.id!)) === 'completed');
      expect(runs).toHaveLength(2);
    });
  });

  describe('when the finish came through', () => {
    it('leaves the job as it is', async () => {
      const job = await queue.add('x', {});
      await until('the job did not complete', async () => (await job.getState()) === 'completed');
      const finishedOn = (await queue.getJob(job.id!))?.finishedOn;

      conn.disconnect(true);
      await until('the connection did not come back', async () => conn.status === 'ready');
      await sleep(300);
      expect((await queue.getJob(job.id!))?.finishedOn).toBe(finishedOn);
      expect(runs).toHaveLength(1);
    });
  });

  describe('when the run ended longer than a lock ago', () => {
    it('leaves the job to the stalled-job check', async () => {
      guard.stop();
      guard = guardFinishes({ conn, lockDurationMs: 1, logger: createLogger({ destination: out.stream }) });
      // A queue no worker takes from: only the guard can move its job.
      const other = new Queue('other', { connection: admin, prefix });
      const job = await other.add('y', {});
      job.processedOn = 1_000;
      const run: Run = { id: job.id!, token: 'tok-1', processedOn: 1_000 };
      await guard.wrap(async () => ({ n: 0 }))(job, run.token);
      const key = `${prefix}:other:${run.id}`;
      await admin
        .multi()
        .lrem(`${prefix}:other:wait`, 0, run.id)
        .lpush(`${prefix}:other:active`, run.id)
        .set(`${key}:lock`, run.token, 'PX', 30_000)
        .hset(key, 'processedOn', '1000')
        .exec();
      await sleep(5);

      conn.disconnect(true);
      await until('the connection did not come back', async () => conn.status === 'ready');
      await sleep(300);
      expect(await other.getJobState(run.id)).toBe('active');
      await other.close();
    });
  });
});
