import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../../src/redis/embedded-server.js';
import { createRedis } from '../../src/redis/connection.js';
import { orderRecord, orderState } from '../helpers/order-records.js';
import { runCli } from './run-cli.js';
import { startStack, type Stack } from './stack.js';
import { eventually, freePort, startWorkerProcess, type WorkerProcess } from './worker-process.js';

/** Issue 26, item 5: a worker that starts while Redis is away waits for it, up to REDIS_START_WAIT_SECONDS. */
describe('worker started while Redis is away', () => {
  let stack: Stack | undefined;
  let server: RedisServer | undefined;
  let worker: WorkerProcess | undefined;
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    await server?.stop();
    server = undefined;
    await stack?.close();
    stack = undefined;
  });

  describe('when Redis starts 3 s later', () => {
    it('waits, saying so every few seconds, then goes on and syncs', async () => {
      stack = await startStack({ orders: [orderRecord('WAIT-1')] }, 'redis-wait');
      const port = await freePort();
      worker = startWorkerProcess({
        ...stack.env,
        REDIS_URL: `redis://127.0.0.1:${port}`,
        LOG_LEVEL: 'info',
        ORDER_POLL_SECONDS: '1',
        REDIS_START_WAIT_SECONDS: '30',
      });
      // Redis comes 3 s after the worker first tried it.
      await eventually(async () => worker!.stdoutLines.some((l) => l.includes('waiting for Redis at')), 30_000, 'the first try');
      await new Promise((r) => setTimeout(r, 3_000));
      server = await startRedisServer({ port });
      await worker.httpUrl;
      await eventually(
        async () => orderState(stack!.sandbox.admin.state(), 'WAIT-1').orders[0]?.statusId === 'ORDER_COMPLETED',
        30_000,
        'the order synced',
      );
      const waiting = worker.stdoutLines.filter((l) => l.includes('waiting for Redis at'));
      expect(waiting.length).toBeGreaterThanOrEqual(1);
      expect(waiting.length).toBeLessThanOrEqual(2);
      expect(JSON.parse(waiting[0]!)).toMatchObject({
        msg: expect.stringMatching(
          new RegExp(`^waiting for Redis at redis://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED.* s left of REDIS_START_WAIT_SECONDS\\)$`),
        ),
      });
      expect((await worker.stop()).code).toBe(0);
      worker = undefined;
    }, 60_000);
  });

  describe('when Redis answers but refuses writes (full) at the start', () => {
    it('waits for it to take writes, saying so, then goes on and syncs', async () => {
      stack = await startStack({ orders: [orderRecord('FULL-1')] }, 'redis-full-start');
      server = await startRedisServer();
      const admin = createRedis(server.url);
      try {
        // Full before the worker starts: every write it makes as it starts (queue settings, schedules) answers OOM.
        const used = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1]);
        await admin.config('SET', 'maxmemory', String(Math.floor(used / 2)));
        worker = startWorkerProcess({
          ...stack.env,
          REDIS_URL: server.url,
          LOG_LEVEL: 'info',
          ORDER_POLL_SECONDS: '1',
          REDIS_START_WAIT_SECONDS: '30',
        });
        await eventually(
          async () => worker!.stdoutLines.some((l) => l.includes('waiting for Redis to take writes: OOM')),
          30_000,
          'the wait',
        );
        await new Promise((r) => setTimeout(r, 2_000));
        expect(worker.child.exitCode).toBeNull();
        await admin.config('SET', 'maxmemory', '0');
        await eventually(
          async () => orderState(stack!.sandbox.admin.state(), 'FULL-1').orders[0]?.statusId === 'ORDER_COMPLETED',
          30_000,
          'the order synced',
        );
        expect((await worker.stop()).code).toBe(0);
        worker = undefined;
      } finally {
        admin.disconnect();
      }
    }, 90_000);
  });

  describe('when Redis answers but refuses writes (full) at the start, with ACCOUNTS_FILE', () => {
    it('waits for it to take writes (each account writes its scheduled pulls as it starts), then goes on and syncs', async () => {
      stack = await startStack({ orders: [orderRecord('FULL-2')] }, 'redis-full-start-accounts');
      // Two accounts, the environment's settings each: a worker of many accounts restarted while Redis was full met this
      // in the chaos run (exit 3); and it says it waits once for all its accounts, not once each.
      const dir = mkdtempSync(join(tmpdir(), 'isync-full-accounts-'));
      const file = join(dir, 'accounts.json');
      writeFileSync(file, JSON.stringify({ accounts: { default: {}, north: {} } }));
      server = await startRedisServer();
      const admin = createRedis(server.url);
      try {
        // Full before the worker starts: every write it makes as it starts (queue settings, schedules) answers OOM.
        const used = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1]);
        await admin.config('SET', 'maxmemory', String(Math.floor(used / 2)));
        worker = startWorkerProcess({
          ...stack.env,
          REDIS_URL: server.url,
          LOG_LEVEL: 'info',
          ORDER_POLL_SECONDS: '1',
          REDIS_START_WAIT_SECONDS: '30',
          ACCOUNTS_FILE: file,
        });
        await eventually(
          async () => worker!.stdoutLines.some((l) => l.includes('waiting for Redis to take writes: OOM')),
          30_000,
          'the wait',
        );
        await new Promise((r) => setTimeout(r, 2_000));
        expect(worker.child.exitCode).toBeNull();
        expect(worker.stdoutLines.filter((l) => l.includes('waiting for Redis to take writes: OOM'))).toHaveLength(1);

        await admin.config('SET', 'maxmemory', '0');
        await eventually(
          async () => orderState(stack!.sandbox.admin.state(), 'FULL-2').orders[0]?.statusId === 'ORDER_COMPLETED',
          30_000,
          'the order synced',
        );
        expect((await worker.stop()).code).toBe(0);
        worker = undefined;
      } finally {
        admin.disconnect();
        rmSync(dir, { recursive: true, force: true });
      }
    }, 90_000);
  });

  describe('when Redis never comes', () => {
    it('exits 3 after REDIS_START_WAIT_SECONDS with the one-line reason', async () => {
      const port = await freePort();
      const started = Date.now();
      const run = await runCli(['worker'], {
        ...(await startStack({}, 'redis-never').then((s) => ((stack = s), s.env))),
        REDIS_URL: `redis://127.0.0.1:${port}`,
        LOG_LEVEL: 'info',
        REDIS_START_WAIT_SECONDS: '4',
      });
      const ms = Date.now() - started;
      expect(run.code, run.stderr).toBe(3);
      expect(ms).toBeGreaterThanOrEqual(4_000);
      expect(run.stderr).toContain(`Redis could not be reached at redis://127.0.0.1:${port}`);
      expect(run.stdout).toContain('waiting for Redis at');
    }, 60_000);

    it('stops waiting at the first SIGTERM', async () => {
      stack = await startStack({}, 'redis-term');
      const port = await freePort();
      worker = startWorkerProcess({
        ...stack.env,
        REDIS_URL: `redis://127.0.0.1:${port}`,
        LOG_LEVEL: 'info',
        REDIS_START_WAIT_SECONDS: '60',
      });
      await eventually(async () => worker!.stdoutLines.some((l) => l.includes('waiting for Redis at')), 30_000, 'the first try');
      const { code, ms } = await worker.stop('SIGTERM');
      worker = undefined;
      expect(code).toBe(3);
      expect(ms).toBeLessThan(10_000);
    }, 60_000);

    it('a one-shot command (status) does not wait', async () => {
      const port = await freePort();
      const started = Date.now();
      const run = await runCli(['status'], {
        ...(await startStack({}, 'redis-status').then((s) => ((stack = s), s.env))),
        REDIS_URL: `redis://127.0.0.1:${port}`,
      });
      expect(run.code, run.stderr).toBe(3);
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(run.stdout + run.stderr).not.toContain('waiting for Redis');
    }, 60_000);
  });
});
