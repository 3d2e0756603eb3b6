import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { JobResult } from '../../src/queue/job-context.js';
import { check, type CheckResult } from './check-types.js';
import type { CountSpec, Scenario } from './scenario.js';

/** The result of each completed stock-count job, by countId. */
export async function countResults(redis: Redis, prefix: string): Promise<Map<string, JobResult>> {
  const q = new Queue('stock-counts', { connection: redis, prefix });
  try {
    const jobs = await q.getJobs(['completed'], 0, -1);
    return new Map(jobs.map((j) => [String((j.data.record as { countId?: unknown }).countId), j.returnvalue as JobResult]));
  } finally {
    await q.close();
  }
}

/** The counts of the same location newer than c that list productId. */
function newerListing(scenario: Scenario, c: CountSpec, productId: string): CountSpec[] {
  return [...scenario.counts.values()].filter((o) => o.location === c.location && o.countDate > c.countDate && o.items.has(productId));
}

/**
 * Outcomes say what happened: a count ends `skipped` only when newer counts of its location list every product
 * it lists, and each product a result leaves to a newer count is listed by that count, of that location, newer.
 * (Whether an older count left a shared product out or set it before the newer one came depends on timing; both
 * are right, so only what a result claims is checked, with the stock check proving the end state.)
 */
export function checkCountResults(scenario: Scenario, results: Map<string, JobResult>): CheckResult {
  const v: string[] = [];
  for (const c of scenario.counts.values()) {
    const r = results.get(c.countId);
    if (!r) continue; // the queue check reports a good job that did not complete
    const left = (r.details?.leftToNewer ?? []) as Array<{ countId: string; productIds: string[] }>;
    for (const g of left) {
      const newer = scenario.counts.get(g.countId);
      for (const p of g.productIds) {
        if (!newer || newer.location !== c.location || newer.countDate <= c.countDate || !newer.items.has(p)) {
          v.push(`count ${c.countId}: leaves ${p} to ${g.countId}, which is not a newer count of ${c.location} listing it`);
        }
      }
    }
    if (r.outcome !== 'skipped') continue;
    const own = [...c.items.keys()].filter((p) => newerListing(scenario, c, p).length === 0);
    if (own.length) v.push(`count ${c.countId} ended skipped, but no newer count of ${c.location} lists ${own.join(', ')}`);
    const named = new Set(left.flatMap((g) => g.productIds));
    const unnamed = [...c.items.keys()].filter((p) => !named.has(p));
    if (unnamed.length && !own.length) v.push(`count ${c.countId} ended skipped without naming the newer counts of ${unnamed.join(', ')}`);
  }
  return check(
    'each count skipped only when newer counts list all its products; products left out name a newer count listing them',
    scenario.counts.size,
    v,
  );
}
