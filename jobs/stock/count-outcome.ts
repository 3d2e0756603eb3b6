import type { JobResult } from '../../src/queue/job-context.js';
import type { LeftOut } from './product-marks.js';

/** Products named in a summary line; the result's details name them all. */
const NAMED = 10;

export interface LeftGroup {
  countId: string;
  countDate: string;
  productIds: string[];
}

/** The products left to newer counts, grouped by the newer count, oldest first. */
export function leftGroups(left: Map<string, LeftOut>): LeftGroup[] {
  const by = new Map<string, LeftGroup>();
  for (const l of left.values()) {
    const g = by.get(l.countId) ?? { countId: l.countId, countDate: l.countDate, productIds: [] };
    g.productIds.push(l.productId);
    by.set(l.countId, g);
  }
  return [...by.values()].sort((a, b) => a.countDate.localeCompare(b.countDate) || a.countId.localeCompare(b.countId));
}

/** "SKU-1, SKU-2 to CNT-B (2026-11-22); SKU-3 to CNT-C (2026-11-23)", at most NAMED products. */
export function leftText(left: Map<string, LeftOut>): string {
  let room = NAMED;
  const parts: string[] = [];
  for (const g of leftGroups(left)) {
    if (room <= 0) break;
    const shown = g.productIds.slice(0, room);
    room -= shown.length;
    parts.push(`${shown.join(', ')}${shown.length < g.productIds.length ? ', ...' : ''} to ${g.countId} (${g.countDate})`);
  }
  const more = left.size > NAMED ? ` (${left.size} products in all)` : '';
  return `${parts.join('; ')}${more}`;
}

export interface CountFacts {
  countId: string;
  where: string;
  facilityUrl: string;
  countDate: string;
  /** Products the count lists. */
  products: number;
  left: Map<string, LeftOut>;
  differences: number;
  variances: string[];
  snapshotId?: string;
}

/** A count wholly covered by newer counts of its location: nothing of it applies. */
export function skippedResult(f: CountFacts): JobResult {
  const newer = leftGroups(f.left).map((g) => `${g.countId} of ${g.countDate}`);
  return {
    outcome: 'skipped',
    why: 'every product was set by a newer count',
    summary:
      `count ${f.countId} of ${f.where} (${f.countDate}): every product it lists was set by a newer count there ` +
      `(${newer.join(', ')}); not applied over newer stock`,
    details: { facilityUrl: f.facilityUrl, countDate: f.countDate, leftToNewer: leftGroups(f.left) },
  };
}

/** The result of a count that set at least one product; products left to newer counts are named. */
export function countResult(f: CountFacts): JobResult {
  if (f.products > 0 && f.left.size >= f.products) return skippedResult(f);
  const leftPart = f.left.size ? `; ${f.left.size} of its ${f.products} products left to newer counts: ${leftText(f.left)}` : '';
  const details: Record<string, unknown> = {
    facilityUrl: f.facilityUrl,
    countDate: f.countDate,
    differences: f.differences,
    variances: f.variances,
    snapshotId: f.snapshotId,
  };
  if (f.left.size) details.leftToNewer = leftGroups(f.left);
  if (!f.differences) {
    const what = f.left.size ? 'its other products match' : 'matches';
    return {
      outcome: 'unchanged',
      summary: `count ${f.countId} at ${f.where} on ${f.countDate} ${what} the stock on hand; nothing posted${leftPart}`,
      details,
    };
  }
  const n = f.variances.length;
  return {
    outcome: 'synced',
    summary:
      `count ${f.countId} at ${f.where} on ${f.countDate}: ` +
      `${f.differences} differences posted in ${n} variance${n === 1 ? '' : 's'}${leftPart}`,
    details,
  };
}
