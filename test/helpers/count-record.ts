import type { JobResult } from '../../src/queue/job-context.js';
import type { TestWorld } from './test-world.js';

/** A count of the demo account. */
export function countRecord(countId: string, location: string, countDate: string, items: Array<[string, number]>) {
  return { countId, location, countDate, items: items.map(([productId, quantity]) => ({ productId, quantity })) };
}

/** Queues counts one after the other, each processed to the end before the next is queued. */
export async function syncOneByOne(world: TestWorld, ...counts: Array<ReturnType<typeof countRecord>>): Promise<void> {
  for (const c of counts) {
    await world.add('stock-counts', [c]);
    await world.idle();
  }
}

/** Quantity on hand of a product at a location (facility name), as the sandbox holds it. */
export function stockAt(world: TestWorld, location: string, productId: string): number {
  return world.sandbox.admin.stockOnHand(world.facility(location), world.product(productId));
}

/** The products a count's result left to newer counts: newer countId -> productIds. */
export function leftToNewer(result: JobResult): Record<string, string[]> {
  const groups = (result.details?.leftToNewer ?? []) as Array<{ countId: string; productIds: string[] }>;
  return Object.fromEntries(groups.map((g) => [g.countId, [...g.productIds].sort()]));
}

/** Every difference posted at a location, per productId, in the order the service took them. */
export function postedLines(world: TestWorld, location: string): Map<string, number[]> {
  const state = world.sandbox.admin.state();
  const ids = new Map(state.products.map((p) => [p.productUrl, p.productId]));
  const out = new Map<string, number[]>();
  for (const v of state.variances.filter((x) => x.facilityUrl === world.facility(location))) {
    for (const i of v.inventoryItemVarianceList) {
      const id = ids.get(i.productUrl) ?? i.productUrl;
      out.set(id, [...(out.get(id) ?? []), i.quantityOnHandVar]);
    }
  }
  return out;
}

/** Every note of every attempt of a job, one string. */
export async function notesOf(world: TestWorld, jobId: string | undefined): Promise<string> {
  const traces = await world.traces('stock-counts', String(jobId));
  return traces.flatMap((t) => (t.notes as Array<{ message: string }>).map((n) => n.message)).join('\n');
}

/**
 * Runs a count whose variance POSTs are refused (503) from the (after+1)th on, until its job fails; answers the
 * failure. Use a world with few attempts; other counts must not run meanwhile.
 */
export async function failCountAfter(world: TestWorld, count: ReturnType<typeof countRecord>, after: number): Promise<string | undefined> {
  const refuse = () => world.sandbox.admin.setFaults([{ kind: 'status-503', method: 'POST', path: '/api/inventoryvariance$' }]);
  const start = world.sandbox.admin.counters().creates.variance;
  let timer: NodeJS.Timeout | undefined;
  if (after === 0) refuse();
  else {
    world.sandbox.admin.setLatency({ ms: 30 });
    timer = setInterval(() => {
      if (world.sandbox.admin.counters().creates.variance - start < after) return;
      refuse();
      clearInterval(timer);
    }, 2);
  }
  await world.add('stock-counts', [count]);
  await world.idle();
  clearInterval(timer);
  world.sandbox.admin.setFaults([]);
  world.sandbox.admin.setLatency(null);
  return (await jobOfRecord(world, count)).failedReason;
}

/** The job of this very record (a corrected record has the same countId and another job). */
export async function jobOfRecord(world: TestWorld, count: ReturnType<typeof countRecord>) {
  const job = (await world.jobs('stock-counts')).find((j) => JSON.stringify(j.data.record) === JSON.stringify(count));
  if (!job) throw new Error(`no job for ${count.countId} with this content`);
  return job;
}
