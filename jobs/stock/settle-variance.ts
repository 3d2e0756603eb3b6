import { textOf, urlOf } from '../../src/client/answers/cells.js';
import type { ServiceApi } from '../../src/client/service-api.js';
import { sameLines, type VarianceLine } from './count-plan.js';

export interface LostVariance {
  facilityUrl: string;
  countDate: string;
  lines: VarianceLine[];
  /** Variance URLs already accounted for at this location and date (never taken for the lost one). */
  known: Set<string>;
}

function linesOf(list: unknown): VarianceLine[] | undefined {
  if (!Array.isArray(list)) return undefined;
  const out: VarianceLine[] = [];
  for (const item of list) {
    const row = item as Record<string, unknown>;
    if (typeof row?.productUrl !== 'string' || typeof row.quantityOnHandVar !== 'number') return undefined;
    out.push([row.productUrl, row.quantityOnHandVar]);
  }
  return out;
}

/**
 * Establishes from the service whether a variance whose answer was lost was applied: among the variances at
 * the facility dated {countDate}T19:00 that are not already known, one with exactly the intended lines.
 * Answers its URL ('' when the service gives none), or undefined when it was not applied.
 * Costs one collection GET plus one GET per candidate whose row does not carry its lines.
 */
export async function findLostVariance(client: ServiceApi, lost: LostVariance): Promise<string | undefined> {
  const rows = await client.listCollection('inventoryvariance');
  const day = `${lost.countDate}T19:00`;
  for (const row of rows) {
    if (row.facilityUrl !== lost.facilityUrl) continue;
    if (!String(row.physicalInventoryDate ?? '').startsWith(day)) continue;
    const id = textOf(row.physicalInventoryId);
    const url = urlOf(row.physicalInventoryUrl) ?? (id ? client.entityPath('inventoryvariance', id) : undefined);
    if (!url || lost.known.has(url)) continue;
    const lines = linesOf(row.inventoryItemVarianceList) ?? linesOf((await client.getVariance(url)).inventoryItemVarianceList);
    if (lines && sameLines(lines, lost.lines)) return url;
  }
  return undefined;
}
