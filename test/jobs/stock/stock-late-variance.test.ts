import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRecord } from '../../helpers/count-record.js';
import { jobOf, testWorld, type TestWorld } from '../../helpers/test-world.js';

/** The variance lands this long after its connection was dropped: after the read made at once, before lateWriteMs. */
const LANDS_AFTER_MS = 500;

/** As chaos seed 7's return (LF-7-00136-R1), for a count's chunk: the service applies it after the read that found nothing. */
describe('stock count sync, when a variance lands after its answer was lost', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await testWorld('stock-late', { streams: ['stock-counts', 'boms'], lateWriteMs: 2_000 });
    await world.deps.catalog.refresh();
    world.sandbox.admin.setFaults([
      { kind: 'drop-then-apply', method: 'POST', path: '/api/inventoryvariance$', times: 1, hangMs: LANDS_AFTER_MS },
    ]);
    await world.add('stock-counts', [
      countRecord('CNT-LATE', 'A-06', '2026-11-21', [
        ['SKU-0005', 1],
        ['MUG-RED', 3],
      ]),
    ]);
    await world.idle(30_000);
    // A chunk posted again would have landed by then too.
    await new Promise((r) => setTimeout(r, LANDS_AFTER_MS + 500));
  }, 60_000);
  afterAll(async () => {
    await world?.close();
  });

  it('applies the difference once', () => {
    const c = world.sandbox.admin.counters();
    expect(c.faults['drop-then-apply']).toBe(1);
    expect(c.creates.variance).toBe(1);
    const a06 = world.facility('A-06');
    expect(world.sandbox.admin.stockOnHand(a06, world.product('SKU-0005'))).toBe(1);
    expect(world.sandbox.admin.stockOnHand(a06, world.product('MUG-RED'))).toBe(3);
  });

  it('reads again once the late window has passed and finds it, posting once', async () => {
    const job = await jobOf(world, 'stock-counts', 'CNT-LATE');
    expect(job.returnvalue.outcome).toBe('synced');
    const traces = await world.traces('stock-counts', String(job.id));
    const notes = traces.flatMap((t) => t.notes.map((n: { message: string }) => n.message));
    expect(notes.some((m: string) => /may still apply it .*read again in \d+ ms/.test(m))).toBe(true);
    expect(notes.some((m: string) => /the service has it/.test(m))).toBe(true);
    expect(traces.flatMap((t) => t.calls).filter((c) => c.method === 'POST')).toHaveLength(1);
  });
});
