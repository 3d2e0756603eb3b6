import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisTarget } from '../../helpers/redis.js';
import { orderRecord, syncedOnce } from '../../helpers/order-records.js';
import { testWorld, type TestWorld } from '../../helpers/test-world.js';

const FIXTURE = fileURLToPath(new URL('../../fixtures/order-worker.ts', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The order worker fixture as a child process, its warn lines on stdout; resolves once it is taking jobs. */
function startWorkerProcess(world: TestWorld, lines: string[]): Promise<ChildProcess> {
  const settings = {
    redis: redisTarget(),
    prefix: world.prefix,
    baseUrl: world.sandbox.url,
    account: world.sandbox.account,
    key: world.sandbox.key,
    secret: world.sandbox.secret,
    concurrency: 4,
    logLevel: 'warn',
    logDestination: 1,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    env: { ...process.env, ORDER_WORKER: JSON.stringify(settings) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      const text = d.toString();
      lines.push(...text.split('\n').filter((l) => l.startsWith('{')));
      if (text.includes('ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker process exited with ${code} before it was ready`)));
  });
}

describe('order sync', () => {
  describe('when a worker is frozen (SIGSTOP) past its locks while another takes its jobs, then thawed', () => {
    let world: TestWorld;
    const ids = Array.from({ length: 16 }, (_, i) => `FROZEN-${i + 1}`);
    const children: ChildProcess[] = [];
    const frozenLines: string[] = [];
    const otherLines: string[] = [];
    let postsBeforeThaw = 0;
    let postsAfterThaw = 0;
    beforeAll(async () => {
      world = await testWorld('order-frozen', { streams: ['orders'], workers: false, sandbox: { latency: { ms: 150 } } });
      await world.deps.catalog.refresh();
      await world.add(
        'orders',
        ids.map((id) => orderRecord(id)),
      );
      const frozen = await startWorkerProcess(world, frozenLines);
      children.push(frozen);
      // Frozen in the middle of orders: some created, their other steps still to come.
      while (world.sandbox.admin.counters().creates.order < 3) await sleep(5);
      frozen.kill('SIGSTOP');
      children.push(await startWorkerProcess(world, otherLines));
      await world.idle(45_000);
      postsBeforeThaw = world.sandbox.admin.counters().byClass.post;
      frozen.kill('SIGCONT');
      // Its locks (1.5 s) are long gone; give it time to try whatever it was about to do.
      await sleep(4_000);
      postsAfterThaw = world.sandbox.admin.counters().byClass.post;
    }, 90_000);
    afterAll(async () => {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
      await world?.close();
    });

    it('sends no write from the frozen worker after it thaws', () => {
      expect(postsAfterThaw - postsBeforeThaw).toBe(0);
    });
    it('syncs every order once', () => {
      expect(syncedOnce(world.sandbox.admin.state(), ids)).toBe(true);
    });
    it('counts no job as failed', async () => {
      const failed = (await world.jobs('orders')).filter((j) => j.failedReason);
      expect(failed.map((j) => j.failedReason)).toEqual([]);
      expect(frozenLines.filter((l) => l.includes('job failed'))).toEqual([]);
    });
    it('says once per job that another worker has it', () => {
      const lost = frozenLines.filter((l) => (JSON.parse(l) as { code?: string }).code === 'LOCK_LOST');
      expect(lost.length).toBeGreaterThan(0);
      expect((JSON.parse(lost[0]!) as { msg: string }).msg).toMatch(/another worker has the job/);
    });
  });
});
