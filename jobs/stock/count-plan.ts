/** One line of a variance: the product and the difference to add to its quantity on hand. */
export type VarianceLine = [productUrl: string, quantityOnHandVar: number];

export interface CountedItem {
  productUrl: string;
  /** Counted quantity on hand. */
  quantity: number;
}

/** Differences below this are float noise, not stock. */
const EPSILON = 1e-9;

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/**
 * The non-zero differences `count − on hand` of a count, in count order, split into chunks of at most chunkSize
 * lines (one variance each). No chunk at all when the count matches the stock.
 */
export function planDifferences(items: CountedItem[], onHand: Map<string, number>, chunkSize: number): VarianceLine[][] {
  const size = Math.max(1, Math.floor(chunkSize));
  const chunks: VarianceLine[][] = [];
  let current: VarianceLine[] = [];
  for (const item of items) {
    const diff = round(item.quantity - (onHand.get(item.productUrl) ?? 0));
    if (Math.abs(diff) < EPSILON) continue;
    current.push([item.productUrl, diff]);
    if (current.length >= size) {
      chunks.push(current);
      current = [];
    }
  }
  if (current.length) chunks.push(current);
  return chunks;
}

/** The variance date of a business date: always 19:00, as the service requires. */
export function varianceDate(countDate: string): string {
  return `${countDate}T19:00:00.000`;
}

/** Whether two sets of variance lines carry the same differences per product. */
export function sameLines(a: Iterable<VarianceLine>, b: Iterable<VarianceLine>): boolean {
  const sum = (lines: Iterable<VarianceLine>) => {
    const m = new Map<string, number>();
    for (const [url, q] of lines) m.set(url, (m.get(url) ?? 0) + q);
    return m;
  };
  const ma = sum(a);
  const mb = sum(b);
  if (ma.size !== mb.size) return false;
  for (const [url, q] of ma) {
    const other = mb.get(url);
    if (other === undefined || Math.abs(other - q) > 1e-6) return false;
  }
  return true;
}
