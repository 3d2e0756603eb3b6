import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderRecord } from '../helpers/order-records.js';
import { connect, deletePrefix, redisUrl, uniquePrefix } from '../helpers/redis.js';
import { newSecret, push } from '../ingest/push-sender.js';
import { baseEnv, collect, runCli, spawnCli } from './run-cli.js';
import { eventually } from './worker-process.js';

const SECRET = newSecret();

describe('receive', () => {
  const redis = connect();
  const prefix = uniquePrefix('receive');
  let env: Record<string, string>;

  beforeAll(() => {
    env = { ...baseEnv(), REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, INGEST_SECRET: SECRET, LOG_LEVEL: 'info' };
  });
  afterAll(async () => {
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  describe('with a secret and a port', () => {
    it('takes pushes into the queues without processing them (no service needed), and stops on SIGTERM', async () => {
      const child = spawnCli(['receive', '--port', '0'], env);
      const run = collect(child, { timeoutMs: 60_000 });
      let out = '';
      child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
      await eventually(async () => out.includes('receiver started'), 30_000, 'the receiver to start');
      const started = JSON.parse(out.split('\n').find((l) => l.includes('receiver started'))!) as { url: string };
      const a = await push(started.url, 'orders', orderRecord('RECV-1'), { secrets: [SECRET] });
      expect(a.status).toBe(202);
      const queue = new Queue('orders', { connection: redis, prefix });
      expect(await queue.getWaitingCount()).toBe(1);
      await queue.close();
      child.kill('SIGTERM');
      const r = await run;
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('receiver stopped');
      // The secret never reaches a log line.
      expect(r.stdout + r.stderr).not.toContain(SECRET.slice('whsec_'.length));
    });
  });

  describe('without a secret, or without a port', () => {
    it('exits 2 with one line saying what to set', async () => {
      const noSecret = await runCli(['receive', '--port', '0'], { ...baseEnv(), REDIS_URL: redisUrl() });
      expect(noSecret.code).toBe(2);
      expect(noSecret.stderr.trim()).toBe('INGEST_SECRET: is required to receive pushes (or INGEST_SECRET_FILE; see docs/push.md)');
      const noPort = await runCli(['receive'], env);
      expect(noPort.code).toBe(2);
      expect(noPort.stderr.trim()).toBe('receive: give --port or set INGEST_PORT');
    });
  });
});
