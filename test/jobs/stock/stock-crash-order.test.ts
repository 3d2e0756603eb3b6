import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxProfile } from '../../../src/sandbox/sandbox-options.js';
import { readStockOnHand } from '../../../src/catalog/stock-on-hand.js';
import { locationStock } from '../../../jobs/stock/stock-snapshot.js';
import { countRecord, leftToNewer, notesOf, postedLines, stockAt } from '../../helpers/count-record.js';
import { exited, killAll, startStockWorker } from '../../helpers/stock-worker.js';
import { describeEachProfile, jobOf, testWorld, type TestWorld } from '../../helpers/test-world.js';

const LOCATIONS = ['A-01', 'A-02', 'N-01', 'N-02'];
const CHUNK = 2;
/** Per location: the newer count sets products 0-7 to stock + 1, the older one 4-11 to stock + 2 (4-7 shared). */
const NEWER = [0, 8] as const;
const OLDER = [4, 12] as const;

const children: ChildProcess[] = [];
afterEach(() => killAll(children));

type Count = ReturnType<typeof countRecord>;

/** The products stocked at each location, and each one's stock before the run. */
function plan(world: TestWorld) {
  const state = world.sandbox.admin.state();
  return LOCATIONS.map((name) => {
    const loc = world.facility(name);
    const products = [...new Set(state.inventory.filter((r) => r.facilityUrl === loc).map((r) => r.productId))].slice(0, 12);
    const before = new Map(products.map((p) => [p, stockAt(world, name, p)]));
    const count = (id: string, date: string, [from, to]: readonly number[], plus: number): Count =>
      countRecord(
        `${id}-${name}`,
        name,
        date,
        products.slice(from, to).map((p): [string, number] => [p, before.get(p)! + plus]),
      );
    return { name, products, before, newer: count('CNT-NEW', '2026-11-22', NEWER, 1), older: count('CNT-OLD', '2026-11-21', OLDER, 2) };
  });
}

/**
 * Runs `first` in a worker process that SIGKILLs itself after 3 variance answers (before recording the third),
 * then `second` to the end in this process while the dead process's jobs are still locked, then a fresh worker
 * process that takes the dead one's jobs back and finishes them. The run's snapshot is read beforehand, so every
 * count of `first` has its plan written before the first answer comes back.
 */
async function crashThenOther(world: TestWorld, first: Count[], second: Count[]) {
  const snapshot = {
    client: world.client,
    redis: world.redis,
    keys: world.keys,
    readStock: readStockOnHand,
    maxAgeMs: 600_000,
    readWaitMs: 5_000,
    lockTtlMs: 5_000,
  };
  await locationStock(snapshot, world.facility(LOCATIONS[0]!));
  await world.add('stock-counts', first);
  const dying = await startStockWorker(world, children, { CHUNK: String(CHUNK), CRASH_AFTER_VARIANCES: '3', JOB_LOCK_MS: '6000' });
  expect(await exited(dying)).toBe('SIGKILL');
  await world.add('stock-counts', second);
  // Its stalled checks as short as the worker processes' (a check holds the queue's others off for its interval).
  const pool = await world.startWorkers({ stalledIntervalMs: 500 });
  const until = Date.now() + 20_000;
  const done = async () => (await Promise.all(second.map((c) => jobOf(world, 'stock-counts', c.countId)))).every((j) => j.finishedOn);
  while (!(await done()) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  await pool.close(1_000);
  world.pool = undefined;
  await startStockWorker(world, children, { CHUNK: String(CHUNK) });
  await world.idle(40_000);
}

/** The world of one describe block: the `crashing` counts run first and their worker dies, the others meanwhile. */
function crashWorld(name: string, crashing: 'newer' | 'older', profile: SandboxProfile) {
  const run = {} as { world: TestWorld; counts: ReturnType<typeof plan> };
  beforeAll(async () => {
    run.world = await testWorld(name, {
      streams: ['stock-counts', 'boms'],
      workers: false,
      jobs: { varianceChunkSize: CHUNK },
      sandbox: { profile, latency: { ms: 50 } },
    });
    await run.world.deps.catalog.refresh();
    run.counts = plan(run.world);
    const other = crashing === 'newer' ? 'older' : 'newer';
    await crashThenOther(
      run.world,
      run.counts.map((c) => c[crashing]),
      run.counts.map((c) => c[other]),
    );
  }, 60_000);
  afterAll(async () => {
    await run.world?.close();
  });
  return run;
}

describeEachProfile('stock counts of one location sharing products across a worker crash', (profile) => {
  describe('when the worker dies in the middle of the newer count and the older one is applied meanwhile', () => {
    const run = crashWorld('stock-crash-order-1', 'newer', profile);

    it('sets every product once: the newer count its products, the older one only the others', () => {
      for (const c of run.counts) {
        const lines = postedLines(run.world, c.name);
        c.products.slice(...NEWER).forEach((p) => expect(lines.get(p), `${c.name} ${p}`).toEqual([1]));
        c.products.slice(NEWER[1], OLDER[1]).forEach((p) => expect(lines.get(p), `${c.name} ${p}`).toEqual([2]));
      }
      expect(run.world.sandbox.admin.counters().creates.variance).toBe(LOCATIONS.length * (4 + 2));
    });

    it('names the shared products left to the newer count, and settles the unrecorded variance from the service', async () => {
      const notes: string[] = [];
      for (const c of run.counts) {
        const older = await jobOf(run.world, 'stock-counts', c.older.countId);
        expect(older.returnvalue.outcome).toBe('synced');
        expect(leftToNewer(older.returnvalue)).toEqual({ [c.newer.countId]: c.products.slice(OLDER[0], NEWER[1]).sort() });
        const newer = await jobOf(run.world, 'stock-counts', c.newer.countId);
        expect(newer.returnvalue.outcome).toBe('synced');
        notes.push(await notesOf(run.world, older.id), await notesOf(run.world, newer.id));
      }
      expect(notes.join('\n')).toMatch(/the service has it/);
    });
  });

  describe('when the worker dies in the middle of the older count and the newer one is applied meanwhile', () => {
    const run = crashWorld('stock-crash-order-2', 'older', profile);

    it('ends at the newer count for shared products and at the older one for its others, each applied once', () => {
      for (const c of run.counts) {
        const lines = postedLines(run.world, c.name);
        c.products.slice(0, OLDER[0]).forEach((p) => expect(lines.get(p), `${c.name} ${p}`).toEqual([1]));
        // A shared product: taken from the older plan before it was posted, or posted by it first and then reset.
        c.products.slice(OLDER[0], NEWER[1]).forEach((p) => expect([[1], [2, -1]], `${c.name} ${p}`).toContainEqual(lines.get(p)));
        c.products.slice(NEWER[1], OLDER[1]).forEach((p) => expect(lines.get(p), `${c.name} ${p}`).toEqual([2]));
        c.products.forEach((p, i) => expect(stockAt(run.world, c.name, p)).toBe(c.before.get(p)! + (i < NEWER[1] ? 1 : 2)));
      }
    });

    it('finishes the older count after the restart, naming the products the newer one took from its plan', async () => {
      const taken: string[] = [];
      for (const c of run.counts) {
        const r = (await jobOf(run.world, 'stock-counts', c.older.countId)).returnvalue;
        expect(r.outcome).toBe('synced');
        const left = leftToNewer(r)[c.newer.countId] ?? [];
        for (const p of left) expect(c.products.slice(OLDER[0], NEWER[1])).toContain(p);
        for (const p of left) expect(postedLines(run.world, c.name).get(p)).toEqual([1]);
        taken.push(...left);
      }
      expect(taken.length).toBeGreaterThan(0);
    });
  });
});
