import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrderWorkerProcess } from '../../helpers/order-worker-process.js';
import { orderRecord, syncedOnce } from '../../helpers/order-records.js';
import { testWorld, type TestWorld } from '../../helpers/test-world.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
      const frozen = await startOrderWorkerProcess(world, { lines: frozenLines });
      children.push(frozen);
      // Frozen in the middle of orders: some created, their other steps still to come.
      while (world.sandbox.admin.counters().creates.order < 3) await sleep(5);
      frozen.kill('SIGSTOP');
      children.push(await startOrderWorkerProcess(world, { lines: otherLines }));
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
      const lost = frozenLines.filter((l) => (JSON.parse(l) as { code?: string }).code === 'LEASE_LOST');
      expect(lost.length).toBeGreaterThan(0);
      expect((JSON.parse(lost[0]!) as { msg: string }).msg).toMatch(/write abandoned: lease lost .*another worker has the job/);
    });
  });
});
