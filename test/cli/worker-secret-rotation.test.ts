import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readBreaker } from '../../src/queue/hold/refusal-state.js';
import { redisKeys } from '../../src/redis/connection.js';
import { orderRecord, syncedOnce } from '../helpers/order-records.js';
import { SECRETS, startStack, type Stack } from './stack.js';
import { eventually, startWorkerProcess, type WorkerProcess } from './worker-process.js';

/**
 * Issue 26: the key and secret come from files that a secret manager rotates in place. A 401 after the rotation
 * reads the files again and the request goes once more with the new values, not counted by the breaker; a stream
 * paused for 401 resumes by itself once the files hold credentials the service takes.
 */
const THRESHOLD = 5;
const CONCURRENCY = 3;
const NEW = { key: 'key-rotated-e71f', secret: 'sec-rotated-2c9b84' };

let stack: Stack;
let dir: string;
let workers: WorkerProcess[] = [];
let queue: Queue;

beforeEach(async () => {
  stack = await startStack({}, 'secret-files');
  dir = mkdtempSync(join(tmpdir(), 'isync-secret-rotation-'));
  writeSecrets(SECRETS.key, SECRETS.secret);
  queue = new Queue('orders', { connection: stack.redis, prefix: stack.prefix });
});
afterEach(async () => {
  for (const w of workers) await w.stop();
  workers = [];
  await queue.close();
  await stack.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Writes both files as Kubernetes does (a new file renamed over the old), with a trailing newline. */
function writeSecrets(key: string, secret: string): void {
  for (const [name, value] of [
    ['key', key],
    ['secret', secret],
  ] as const) {
    writeFileSync(join(dir, `${name}.tmp`), `${value}\n`);
    renameSync(join(dir, `${name}.tmp`), join(dir, name));
  }
}

function startWorkers(count: number, threshold = THRESHOLD): void {
  const { INVENTORY_API_KEY: _key, INVENTORY_API_SECRET: _secret, ...env } = stack.env;
  workers = Array.from({ length: count }, () =>
    startWorkerProcess({
      ...env,
      INVENTORY_API_KEY_FILE: join(dir, 'key'),
      INVENTORY_API_SECRET_FILE: join(dir, 'secret'),
      LOG_LEVEL: 'info',
      ORDER_POLL_SECONDS: '1',
      WORKER_CONCURRENCY: String(CONCURRENCY),
      BREAKER_THRESHOLD: String(threshold),
    }),
  );
}

const settled = (ids: string[]) => syncedOnce(stack.sandbox.admin.state(), ids);
const settledCount = (ids: string[]) => ids.filter((id) => settled([id])).length;
const breaker = () => readBreaker(stack.redis, redisKeys(stack.prefix), 'orders');
const lines = () => workers.flatMap((w) => w.stdoutLines);

async function warmUp(): Promise<void> {
  await Promise.all(workers.map((w) => w.httpUrl));
  stack.feed.append('orders', [orderRecord('WARM-1'), orderRecord('WARM-2')]);
  await eventually(async () => settled(['WARM-1', 'WARM-2']), 30_000, 'the warm-up orders');
}

/** Every order synced once, every job completed, nothing failed or waiting, the stream not paused. */
async function expectAllSyncedOnce(ids: string[]): Promise<void> {
  await eventually(async () => settled(ids), 60_000, 'every order synced');
  await eventually(async () => (await queue.getJobCounts('completed')).completed === ids.length + 2, 20_000, 'every job completed');
  expect(await queue.getJobCounts('failed', 'waiting', 'delayed')).toEqual({ failed: 0, waiting: 0, delayed: 0 });
  expect(stack.sandbox.admin.counters().creates).toMatchObject({ order: ids.length + 2, shipment: ids.length + 2 });
  expect((await breaker()).paused).toBe(false);
  expect(await queue.isPaused()).toBe(false);
}

function expectNoSecretLogged(): void {
  const all = lines().join('\n') + workers.map((w) => w.stderr()).join('\n');
  for (const s of [SECRETS.key, SECRETS.secret, NEW.key, NEW.secret]) expect(all).not.toContain(s);
}

describe('worker with the credentials in files', () => {
  describe('when the key is rotated mid-run (files rewritten, the old key revoked)', () => {
    it('syncs every order once, with at most the 401s in flight, and no pause', async () => {
      startWorkers(2);
      await warmUp();
      stack.sandbox.admin.setLatency({ ms: 40 });
      const ids = Array.from({ length: 40 }, (_, i) => `ROT-${i}`);
      stack.feed.append(
        'orders',
        ids.map((id) => orderRecord(id)),
      );
      await eventually(async () => settledCount(ids) >= 4, 30_000, 'a few orders synced with the old key');
      const from = stack.sandbox.admin.requests().length;
      writeSecrets(NEW.key, NEW.secret);
      stack.sandbox.admin.setCredentials(NEW);
      expect(settledCount(ids)).toBeLessThan(ids.length);

      await expectAllSyncedOnce(ids);
      const refused = stack.sandbox.admin
        .requests()
        .slice(from)
        .filter((r) => r.status === 401).length;
      // At least one request met the rotation; at most those in flight in both processes at that moment.
      expect(refused).toBeGreaterThanOrEqual(1);
      expect(refused).toBeLessThanOrEqual(2 * CONCURRENCY);
      expect((await breaker()).refusals).toBe(0);
      expect(lines().filter((l) => l.includes('paused'))).toEqual([]);
      expect(lines().some((l) => l.includes('service credentials read again from their files'))).toBe(true);
      expectNoSecretLogged();
    }, 180_000);
  });

  describe('when the service refuses the key before the files are rotated', () => {
    it('pauses the stream, asks nothing while the files hold the refused key, and resumes by itself after the rotation', async () => {
      startWorkers(1, 3);
      await warmUp();
      stack.sandbox.admin.setCredentials(NEW);
      const ids = Array.from({ length: 10 }, (_, i) => `PAUSE-${i}`);
      stack.feed.append(
        'orders',
        ids.map((id) => orderRecord(id)),
      );
      await eventually(async () => (await breaker()).paused, 30_000, 'the pause');
      expect(await breaker()).toMatchObject({ paused: true, code: 'UNAUTHORIZED' });
      // In-flight jobs finish their one request; then, the files unchanged, not even a probe for longer than a look's interval.
      await new Promise((r) => setTimeout(r, 1_500));
      const quiet = stack.sandbox.admin.requests().length;
      await new Promise((r) => setTimeout(r, 4_000));
      expect(stack.sandbox.admin.requests().length, 'no request while paused with the refused key').toBe(quiet);
      expect((await breaker()).paused).toBe(true);

      writeSecrets(NEW.key, NEW.secret);
      await eventually(async () => !(await breaker()).paused, 20_000, 'the pause ended by itself');
      await expectAllSyncedOnce(ids);
      const resumed = lines().filter((l) => l.includes('resumed by itself'));
      expect(resumed).toHaveLength(1);
      expect(JSON.parse(resumed[0]!)).toMatchObject({ stream: 'orders', level: 30 });
      expectNoSecretLogged();
    }, 180_000);
  });
});
