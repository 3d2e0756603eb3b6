import type { RedisConnection as Redis } from '../../src/redis/connection.js';
import type { RedisKeys } from '../../src/redis/connection.js';
import type { VarianceLine } from './count-plan.js';
import { loadProgress, type CountProgress } from './count-progress.js';
import { readMarks, restoredMark, type LeftOut, type NamedItem } from './product-marks.js';
import { stockKeys } from './stock-keys.js';
import type { PlanEdits } from './write-plan.js';

/** The unfinished counts of a location other than countId, and set members that no longer stand for one. */
export async function openCounts(
  redis: Redis,
  keys: RedisKeys,
  facilityUrl: string,
  countId: string,
): Promise<{ open: CountProgress[]; stale: string[] }> {
  const ids = await redis.smembers(stockKeys(keys).open(facilityUrl));
  const out = { open: [] as CountProgress[], stale: [] as string[] };
  for (const id of ids) {
    if (id === countId) continue;
    const p = await loadProgress(redis, keys, id);
    if (p.state === 'planned' && p.facilityUrl === facilityUrl) out.open.push(p);
    else out.stale.push(id);
  }
  return out;
}

/**
 * The lines a new count takes out of the unposted chunks of other open counts of its location: every line of a
 * product it sets, whichever count planned it first, so that no older plan posts over it later. A chunk already
 * applied, or posted without a settled answer, is never edited (the caller settles intents first).
 */
export function takeLines(open: CountProgress[], included: NamedItem[], by: { countId: string; countDate: string }): PlanEdits['taken'] {
  const ids = new Map(included.map((i) => [i.productUrl, i.productId]));
  const taken: PlanEdits['taken'] = [];
  for (const o of open) {
    const chunks = new Map<number, VarianceLine[]>();
    const left = new Map<string, LeftOut>();
    for (const [i, lines] of o.lines) {
      if (o.applied.has(i) || o.intents.has(i)) continue;
      const keep = lines.filter(([url]) => !ids.has(url));
      if (keep.length === lines.length) continue;
      chunks.set(i, keep);
      for (const [url] of lines) {
        const productId = ids.get(url);
        if (productId !== undefined) left.set(url, { productId, countId: by.countId, countDate: by.countDate });
      }
    }
    if (chunks.size) taken.push({ countId: o.countId, chunks, left });
  }
  return taken;
}

/**
 * The marks an earlier version of a corrected count gives back: a product of its unposted lines that the
 * correction does not set, and whose mark still names the count, gets the mark it replaced (or none).
 */
export async function marksGivenBack(
  redis: Redis,
  keys: RedisKeys,
  earlier: CountProgress,
  setByCorrection: Set<string>,
): Promise<PlanEdits['restore']> {
  if (!earlier.facilityUrl) return [];
  const dropped = new Set<string>();
  for (const [i, lines] of earlier.lines)
    if (!earlier.applied.has(i)) for (const [url] of lines) if (!setByCorrection.has(url)) dropped.add(url);
  const marks = await readMarks(redis, keys, earlier.facilityUrl, [...dropped]);
  const back = new Map<string, string | undefined>();
  for (const [url, m] of marks) if (m.countId === earlier.countId) back.set(url, restoredMark(m));
  return back.size ? [{ facilityUrl: earlier.facilityUrl, marks: back }] : [];
}
