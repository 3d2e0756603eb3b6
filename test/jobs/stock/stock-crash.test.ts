import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { countRecord } from '../../helpers/count-record.js';
import { exited, killAll, startStockWorker } from '../../helpers/stock-worker.js';
import { describeEachProfile, jobOf, testWorld, type TestWorld } from '../../helpers/test-world.js';

const LOCATIONS = ['A-01', 'A-02', 'N-01', 'N-02'];
const PER_COUNT = 8;
const CHUNK = 2;

const children: ChildProcess[] = [];
const startWorkerProcess = (world: TestWorld, extra: Record<string, string> = {}) =>
  startStockWorker(world, children, { CHUNK: String(CHUNK), ...extra });

/** One count per location, every line one more than on hand: PER_COUNT / CHUNK variances each. */
function counts(world: TestWorld, date: string) {
  const state = world.sandbox.admin.state();
  return LOCATIONS.map((name) => {
    const loc = world.facility(name);
    const products = [...new Set(state.inventory.filter((r) => r.facilityUrl === loc).map((r) => r.productId))].slice(0, PER_COUNT);
    const items = products.map((id): [string, number] => [id, world.sandbox.admin.stockOnHand(loc, world.product(id)) + 1]);
    return countRecord(`CNT-${name}-${date}`, name, date, items);
  });
}

async function expectAppliedOnce(world: TestWorld, records: ReturnType<typeof counts>) {
  expect(world.sandbox.admin.counters().creates.variance).toBe(LOCATIONS.length * (PER_COUNT / CHUNK));
  for (const c of records) {
    const loc = world.facility(c.location);
    for (const item of c.items) expect(world.sandbox.admin.stockOnHand(loc, world.product(item.productId))).toBe(item.quantity);
    expect((await jobOf(world, 'stock-counts', c.countId)).returnvalue.outcome).toBe('synced');
  }
}

afterEach(() => killAll(children));

describeEachProfile('stock count sync across a worker crash', (profile) => {
  describe('when the worker dies right after the service applied a variance, before recording it', () => {
    let world: TestWorld;
    let records: ReturnType<typeof counts>;
    beforeAll(async () => {
      world = await testWorld('stock-crash-1', {
        streams: ['stock-counts', 'boms'],
        workers: false,
        sandbox: { profile, latency: { ms: 20 } },
      });
      records = counts(world, '2026-11-21');
      await world.add('stock-counts', records);
    });
    afterAll(async () => {
      await world?.close();
    });

    it('applies every difference once after a restart', async () => {
      const first = await startWorkerProcess(world, { CRASH_AFTER_VARIANCES: '3' });
      expect(await exited(first)).toBe('SIGKILL');
      const applied = world.sandbox.admin.counters().creates.variance;
      expect(applied).toBeGreaterThanOrEqual(3);
      expect(applied).toBeLessThan(LOCATIONS.length * (PER_COUNT / CHUNK));
      await startWorkerProcess(world);
      await world.idle(40_000);
      await expectAppliedOnce(world, records);
    }, 60_000);

    it('settles the unrecorded variance from the service instead of posting it again', async () => {
      const notes: string[] = [];
      for (const c of records) {
        const job = await jobOf(world, 'stock-counts', c.countId);
        for (const t of await world.traces('stock-counts', String(job.id)))
          notes.push(...t.notes.map((n: { message: string }) => n.message));
      }
      expect(notes.some((m) => /posted before without a recorded answer/.test(m))).toBe(true);
      expect(notes.some((m) => /the service has it/.test(m))).toBe(true);
    });
  });

  describe('when the worker process is killed (SIGKILL) in the middle of a run', () => {
    let world: TestWorld;
    afterAll(async () => {
      await world?.close();
    });

    it('applies every difference once after a restart', async () => {
      world = await testWorld('stock-crash-2', {
        streams: ['stock-counts', 'boms'],
        workers: false,
        sandbox: { profile, latency: { ms: 40 } },
      });
      const records = counts(world, '2026-11-22');
      await world.add('stock-counts', records);
      const first = await startWorkerProcess(world);
      const until = Date.now() + 20_000;
      while (world.sandbox.admin.counters().creates.variance < 5 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
      first.kill('SIGKILL');
      await exited(first);
      expect(world.sandbox.admin.counters().creates.variance).toBeLessThan(LOCATIONS.length * (PER_COUNT / CHUNK));
      await startWorkerProcess(world);
      await world.idle(40_000);
      await expectAppliedOnce(world, records);
    }, 60_000);
  });
});
