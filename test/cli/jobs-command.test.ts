import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, deletePrefix, redisUrl, uniquePrefix } from '../helpers/redis.js';
import { baseEnv, runCli } from './run-cli.js';
import { seedFailedBatch, seedJobs, seedWaitingBatch, waitingCount, type Seeded } from './seed-jobs.js';

describe('jobs commands', () => {
  let redis: Redis;
  let prefix: string;
  let seeded: Seeded;
  let env: Record<string, string>;

  beforeAll(async () => {
    redis = connect();
    prefix = uniquePrefix('jobs');
    seeded = await seedJobs(redis, prefix);
    env = { ...baseEnv(), REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix };
  });
  afterAll(async () => {
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  describe.concurrent('jobs list', () => {
    it('shows the failed and waiting jobs in a table, with the reason, and exits 0', async () => {
      const r = await runCli(['jobs', 'list'], env);
      expect(r.code).toBe(0);
      const lines = r.stdout.split('\n');
      expect(lines[0]).toMatch(/^ID\s+STREAM\s+STATE\s+KEY\s+ATTEMPTS/);
      const failed = lines.find((l) => l.startsWith(seeded.failedId));
      expect(failed).toMatch(/orders\s+failed\s+WEB-2\s+1\s/);
      expect(failed).toContain('[BAD_RECORD] record WEB-2: lines.0.productId: unknown product NO-SUCH');
      expect(lines.some((l) => l.startsWith(seeded.waitingId) && /stock-counts\s+waiting\s+CNT-1/.test(l))).toBe(true);
      expect(r.stdout).not.toContain(seeded.completedId);
      expect(r.stdout).toContain('1 failed. See one with: inventory-sync jobs show <ID>');
    });

    it('answers --json with every job of the asked states and streams', async () => {
      const r = await runCli(['jobs', 'list', '--state', 'completed', 'failed', '--stream', 'orders', '--json'], env);
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout) as { prefix: string; jobs: Array<Record<string, unknown>> };
      expect(out.prefix).toBe(prefix);
      const byId = new Map(out.jobs.map((j) => [j.id, j]));
      expect(byId.size).toBe(2);
      expect(byId.get(seeded.completedId)).toMatchObject({
        stream: 'orders',
        state: 'completed',
        key: 'WEB-1',
        outcome: 'synced',
        reason: null,
      });
      expect(byId.get(seeded.failedId)).toMatchObject({
        stream: 'orders',
        state: 'failed',
        key: 'WEB-2',
        attemptsMade: 1,
        reason: { code: 'BAD_RECORD', message: 'record WEB-2: lines.0.productId: unknown product NO-SUCH' },
      });
      expect(typeof byId.get(seeded.failedId)?.createdAt).toBe('string');
    });

    it('refuses an unknown state with exit 2', async () => {
      const r = await runCli(['jobs', 'list', '--state', 'sleeping'], env);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("argument 'sleeping' is invalid");
    });
  });

  describe.concurrent('jobs show', () => {
    it("tells a failed job's story: record, attempt with its calls, the error and what to do", async () => {
      const r = await runCli(['jobs', 'show', seeded.failedId], env);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Job ${seeded.failedId}`);
      expect(r.stdout).toMatch(/state:\s+failed/);
      expect(r.stdout).toContain('"productId": "NO-SUCH"');
      expect(r.stdout).toMatch(/#1\s+\S+Z\s+35 ms\s+failed \[BAD_RECORD\]/);
      expect(r.stdout).toMatch(/GET\s+\/demo\/api\/product\s+200\s+30 ms\s+waited 5 ms/);
      expect(r.stdout).toContain('note ');
      expect(r.stdout).toContain('Error: [BAD_RECORD] record WEB-2: lines.0.productId: unknown product NO-SUCH');
      expect(r.stdout).toContain('What to do: Add the product to the service, then retry the job.');
      expect(r.stdout).toContain(`Then: inventory-sync jobs retry ${seeded.failedId}`);
    });

    it('answers --json with the record, attempts, calls and error', async () => {
      const r = await runCli(['jobs', 'show', seeded.failedId, '--json'], env);
      expect(r.code).toBe(0);
      const s = JSON.parse(r.stdout);
      expect(s).toMatchObject({
        id: seeded.failedId,
        stream: 'orders',
        state: 'failed',
        key: 'WEB-2',
        source: 'import',
        maxAttempts: 3,
        record: { orderId: 'WEB-2' },
        error: { code: 'BAD_RECORD', hint: 'Add the product to the service, then retry the job.', retryable: false },
      });
      expect(s.attempts).toHaveLength(1);
      expect(s.attempts[0].calls[0]).toMatchObject({ method: 'GET', path: '/demo/api/product', status: 200, ms: 30 });
    });

    it('shows a completed job with its result', async () => {
      const r = await runCli(['jobs', 'show', seeded.completedId], env);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Result: synced: order WEB-1 created, shipped and completed');
      expect(r.stdout).not.toContain('Error:');
    });

    it('exits 1 and says so when no job has that id', async () => {
      const r = await runCli(['jobs', 'show', 'orders-NOPE-000000000000'], env);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`No job orders-NOPE-000000000000 under prefix ${prefix}`);
    });
  });

  describe('jobs retry', () => {
    it('exits 2 without ids or --all-failed', async () => {
      const r = await runCli(['jobs', 'retry'], env);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('give the ids of the jobs to retry, or --all-failed');
    });

    it('refuses a job that is not failed with exit 1, naming why', async () => {
      const r = await runCli(['jobs', 'retry', seeded.waitingId, '--json'], env);
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stdout)).toEqual({
        retried: [],
        refused: [{ id: seeded.waitingId, reason: 'it is waiting, not failed' }],
        superseded: [],
        waiting: [],
      });
    });

    it('puts every failed job of a stream back to waiting, with fresh attempts', async () => {
      const other = await runCli(['jobs', 'retry', '--all-failed', '--stream', 'boms'], env);
      expect(other.code).toBe(0);
      expect(other.stdout).toBe('Retried 0 jobs.\n');

      const r = await runCli(['jobs', 'retry', '--all-failed', '--stream', 'orders'], env);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`Retried 1 job.\n  ${seeded.failedId}\n`);
      const list = JSON.parse((await runCli(['jobs', 'list', '--state', 'waiting', '--json'], env)).stdout) as {
        jobs: Array<{ id: string; attemptsMade: number }>;
      };
      expect(list.jobs.find((j) => j.id === seeded.failedId)).toMatchObject({ attemptsMade: 0 });
    });
  });
});

describe('jobs commands on import batches', () => {
  let redis: Redis;
  let prefix: string;
  let env: Record<string, string>;
  let failedId: string;
  let otherFailedId: string;
  let waitingId: string;

  beforeAll(async () => {
    redis = connect();
    prefix = uniquePrefix('jobs-batches');
    failedId = await seedFailedBatch(redis, prefix, 'stock-counts');
    otherFailedId = await seedFailedBatch(redis, prefix, 'boms');
    waitingId = await seedWaitingBatch(redis, prefix, [waitingCount, { ...waitingCount, countId: 'CNT-2' }]);
    env = { ...baseEnv(), REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix };
  });
  afterAll(async () => {
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  it('lists failed and waiting batches with their stream, label and size', async () => {
    const r = await runCli(['jobs', 'list', '--stream', 'stock-counts', '--json'], env);
    expect(r.code).toBe(0);
    const jobs = (JSON.parse(r.stdout) as { jobs: Array<Record<string, unknown>> }).jobs;
    expect(jobs.map((j) => j.id)).toEqual([failedId, waitingId]);
    expect(jobs[0]).toMatchObject({
      stream: 'stock-counts',
      state: 'failed',
      key: 'batch with unreadable data',
      attemptsMade: 1,
      reason: {
        code: 'BAD_BATCH',
        message: expect.stringMatching(new RegExp(`^intake job ${failedId}: not a batch of records \\(items: `)),
      },
      batch: { records: null, firstLine: 1, lastLine: 3 },
    });
    expect(jobs[1]).toMatchObject({
      stream: 'stock-counts',
      state: 'waiting',
      key: 'batch of 2 records, lines 1-2',
      reason: null,
      batch: { records: 2, firstLine: 1, lastLine: 2 },
    });
  });

  it('lists a failed batch among the failed jobs in the table', async () => {
    const r = await runCli(['jobs', 'list', '--state', 'failed'], env);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.find((l) => l.startsWith(failedId))).toMatch(
      /stock-counts\s+failed\s+batch with unreadable data\s+1\s+.*\[BAD_BATCH\] intake job/,
    );
    expect(lines.find((l) => l.startsWith(otherFailedId))).toMatch(/boms\s+failed\s+/);
    expect(r.stdout).toContain('2 import batches (intake-…): records not yet jobs; a worker turns each batch into one job per record.');
    expect(r.stdout).toContain('2 failed. See one with: inventory-sync jobs show <ID>');
  });

  it("tells a failed batch's story: what it holds, the error and what to do", async () => {
    const r = await runCli(['jobs', 'show', failedId], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Job ${failedId}`);
    expect(r.stdout).toMatch(/state:\s+failed/);
    expect(r.stdout).toMatch(
      /Import batch \(its records are not jobs yet; a worker turns it into one job per record\):\n\s+records:\s+unreadable\n\s+lines:\s+1-3\n/,
    );
    expect(r.stdout).not.toContain('Record:');
    expect(r.stdout).toContain(`Error: [BAD_BATCH] intake job ${failedId}: not a batch of records`);
    expect(r.stdout).toMatch(/What to do: \S/);
  });

  it('puts a failed batch back to waiting by id, with fresh attempts', async () => {
    const r = await runCli(['jobs', 'retry', failedId, '--json'], env);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ retried: [{ id: failedId, stream: 'stock-counts' }], refused: [], superseded: [], waiting: [] });
    const story = JSON.parse((await runCli(['jobs', 'show', failedId, '--json'], env)).stdout);
    expect(story).toMatchObject({ id: failedId, state: 'waiting', attemptsMade: 0, record: null, error: null });
  });

  it('puts the failed batches of a stream back with --all-failed', async () => {
    const r = await runCli(['jobs', 'retry', '--all-failed', '--stream', 'boms'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Retried 1 job.\n  ${otherFailedId}\n`);
    const list = JSON.parse((await runCli(['jobs', 'list', '--state', 'waiting', '--stream', 'boms', '--json'], env)).stdout) as {
      jobs: Array<{ id: string }>;
    };
    expect(list.jobs.map((j) => j.id)).toEqual([otherFailedId]);
  });

  it('refuses a waiting batch and an unknown batch id, with exit 1', async () => {
    const r = await runCli(['jobs', 'retry', waitingId, 'intake-orders-000000000000', '--json'], env);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).refused).toEqual([
      { id: waitingId, reason: 'it is waiting, not failed' },
      { id: 'intake-orders-000000000000', reason: `no such job under prefix ${prefix}` },
    ]);
  });
});
