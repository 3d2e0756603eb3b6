import type { JobResult } from '../../src/queue/job-kind.js';
import type { TestWorld } from './test-world.js';

/** A count of the demo account. */
export function countRecord(countId: string, location: string, countDate: string, items: Array<[string, number]>) {
  return { countId, location, countDate, items: items.map(([productId, quantity]) => ({ productId, quantity })) };
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
