import type { RedisConnection as Redis } from '../../src/redis/connection.js';
import type { RedisKeys } from '../../src/redis/connection.js';
import type { CountedItem } from './count-plan.js';
import { stockKeys } from './stock-keys.js';

/** Where a count stands among the counts of its location: newer = later countDate, then later plan (seq). */
export interface CountRank {
  countId: string;
  countDate: string;
  /** Arrival order: the number its plan drew from `stock:seq`. */
  seq: number;
}

/**
 * The count that set a product at a location (planned to set it: its line may still be posting), and the mark
 * it replaced, kept one level deep so that a correction dropping an unposted line can give the product back.
 */
export interface ProductMark extends CountRank {
  prev?: CountRank;
}

/** A product a count leaves out of its variance because a newer count of the location set it. */
export interface LeftOut {
  productId: string;
  countId: string;
  countDate: string;
}

export type NamedItem = CountedItem & { productId: string };

export function isNewer(a: CountRank, than: CountRank): boolean {
  return a.countDate > than.countDate || (a.countDate === than.countDate && a.seq > than.seq);
}

function rankOf(m: CountRank): CountRank {
  return { countId: m.countId, countDate: m.countDate, seq: m.seq };
}

export function parseMark(raw: string | null | undefined): ProductMark | undefined {
  if (!raw) return undefined;
  const m = JSON.parse(raw) as ProductMark;
  return typeof m.countId === 'string' && typeof m.countDate === 'string' ? m : undefined;
}

/** The marks of some products at a location (absent: no count has set the product there). */
export async function readMarks(
  redis: Redis,
  keys: RedisKeys,
  facilityUrl: string,
  productUrls: string[],
): Promise<Map<string, ProductMark>> {
  const out = new Map<string, ProductMark>();
  if (!productUrls.length) return out;
  const raw = await redis.hmget(stockKeys(keys).marks(facilityUrl), ...productUrls);
  productUrls.forEach((url, i) => {
    const m = parseMark(raw[i]);
    if (m) out.set(url, m);
  });
  return out;
}

export interface ProductSplit {
  /** The products this count sets: no newer count of the location set them. */
  included: NamedItem[];
  /** productUrl -> the newer count that set it. */
  left: Map<string, LeftOut>;
  /** productUrl -> the mark this count writes for an included product. */
  marks: Map<string, ProductMark>;
}

/**
 * Splits a count's items by the location's marks: a product a newer count set is left to it; every other one is
 * this count's, and its mark names this count. A mark of the same countId (an earlier version) never excludes. A row
 * split off a count (`splitFrom`) also leaves a product that count set itself (a later version, or a retry that found
 * the product): the count it came from decided it.
 */
export function splitByMarks(count: CountRank, items: NamedItem[], marks: Map<string, ProductMark>, splitFrom?: string): ProductSplit {
  const split: ProductSplit = { included: [], left: new Map(), marks: new Map() };
  for (const item of items) {
    const mark = marks.get(item.productUrl);
    if (mark && mark.countId !== count.countId && (isNewer(mark, count) || mark.countId === splitFrom)) {
      split.left.set(item.productUrl, { productId: item.productId, countId: mark.countId, countDate: mark.countDate });
      continue;
    }
    split.included.push(item);
    const prev = mark && mark.countId !== count.countId ? rankOf(mark) : mark?.prev;
    split.marks.set(item.productUrl, prev ? { ...rankOf(count), prev } : rankOf(count));
  }
  return split;
}

/** What a product's mark becomes when the line of the count it names is dropped unposted: the mark it replaced. */
export function restoredMark(mark: ProductMark): string | undefined {
  return mark.prev ? JSON.stringify(mark.prev) : undefined;
}
