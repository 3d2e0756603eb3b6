/**
 * Order lives for the chaos run (docs/orders.md "The order's life"): orders told as snapshots with increasing
 * updatedAt, open → edited → shipped in parts → fulfilled → returned, and open → cancelled before anything ships;
 * put into the feed among the plain orders, some snapshots swapped so that an older one comes after a newer one.
 */
import { seededRandom } from '../../src/sandbox/seeded-random.js';

type Line = { productId: string; quantity: number; unitPrice: number; location: string };
type PartLine = { productId: string; quantity: number; location: string };

/** One snapshot of a life, as the feed carries it. */
export interface LifeSnapshot {
  orderId: string;
  origin: string;
  status: 'open' | 'fulfilled' | 'cancelled';
  updatedAt: string;
  lines: Line[];
  fulfillments?: Array<{ fulfillmentId: string; lines: PartLine[] }>;
  returns?: Array<{ returnId: string; restock: boolean; returnedAt: string; lines: PartLine[] }>;
}

export interface LifeSpec {
  orderId: string;
  /** `full`: open, edited, shipped in two parts (the second from a second location), returned; `cancel`: cancelled. */
  kind: 'full' | 'cancel';
  /** Its snapshots in updatedAt order; the last is what the service must end up holding. */
  snapshots: LifeSnapshot[];
  /** Snapshots delivered in another order than their updatedAt's (an older one after a newer one). */
  swapped: boolean;
}

export interface LivesOptions {
  seed: number;
  count: number;
  locations: ReadonlyArray<{ magazine: string; name: string }>;
  products: readonly string[];
}

/** The newest snapshot of a life: what the service must hold at the end. */
export const newestOf = (life: LifeSpec): LifeSnapshot => life.snapshots[life.snapshots.length - 1]!;

const part = (l: Line, quantity = l.quantity): PartLine => ({ productId: l.productId, quantity, location: l.location });

/** A day of 2025 per life: return variances are dated 19:00 of it, apart from the counts' days and each other's. */
function returnDay(i: number): string {
  return new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10);
}

function fullLife(orderId: string, i: number, base: Omit<LifeSnapshot, 'status' | 'updatedAt'>, rand: () => number): LifeSnapshot[] {
  const [l1, l2] = base.lines as [Line, Line];
  // A quantity raised, a line dropped: never below what F1 shipped (one unit of the first line).
  const edited = [{ ...l1, quantity: l1.quantity + 1 + Math.floor(rand() * 2) }, l2];
  const f1 = { fulfillmentId: `${orderId}-F1`, lines: [part(l1, 1)] };
  // The rest, the second line from the second location.
  const f2 = { fulfillmentId: `${orderId}-F2`, lines: [part(edited[0]!, edited[0]!.quantity - 1), part(l2)] };
  const day = returnDay(i);
  const returns = [
    { returnId: `${orderId}-R1`, restock: true, returnedAt: `${day}T10:00:00`, lines: [part(l1, 1)] },
    { returnId: `${orderId}-R2`, restock: false, returnedAt: `${day}T11:00:00`, lines: [part(l2, 1)] },
  ];
  const editFirst = rand() < 0.5;
  return [
    { ...base, status: 'open' as const },
    editFirst ? { ...base, status: 'open' as const, lines: edited } : { ...base, status: 'open' as const, fulfillments: [f1] },
    { ...base, status: 'open' as const, lines: edited, fulfillments: [f1] },
    { ...base, status: 'fulfilled' as const, lines: edited, fulfillments: [f1, f2] },
    { ...base, status: 'fulfilled' as const, lines: edited, fulfillments: [f1, f2], returns },
  ].map((s, k) => ({ ...s, updatedAt: stamp(i, k) }));
}

function cancelLife(i: number, base: Omit<LifeSnapshot, 'status' | 'updatedAt'>, rand: () => number): LifeSnapshot[] {
  const edited = base.lines.slice(0, 2).map((l, k) => (k === 0 ? { ...l, quantity: l.quantity + 1 } : l));
  const steps: Array<Pick<LifeSnapshot, 'status' | 'lines'>> = [{ status: 'open', lines: base.lines }];
  if (rand() < 0.5) steps.push({ status: 'open', lines: edited });
  steps.push({ status: 'cancelled', lines: steps[steps.length - 1]!.lines });
  return steps.map((s, k) => ({ ...base, ...s, updatedAt: stamp(i, k) }));
}

/** updatedAt of snapshot k of life i: an hour apart, lives a minute apart. */
function stamp(i: number, k: number): string {
  const t = new Date(Date.UTC(2026, 10, 20, 8 + k, 0, 0) + i * 60_000);
  return t.toISOString().slice(0, 19);
}

/** Two lives in three are full ones, one in three is cancelled; a third of them are delivered with two snapshots swapped. */
export function buildLives(o: LivesOptions): LifeSpec[] {
  const rand = seededRandom(o.seed * 31 + 101);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const lives: LifeSpec[] = [];
  for (let i = 0; i < o.count; i++) {
    const orderId = `LF-${o.seed}-${String(i + 1).padStart(5, '0')}`;
    const at = pick(o.locations);
    const second = pick(o.locations.filter((l) => l.magazine === at.magazine && l.name !== at.name));
    const products = new Set<string>();
    while (products.size < 3) products.add(pick(o.products));
    const [p1, p2, p3] = [...products] as [string, string, string];
    const line = (productId: string, location: string): Line => ({
      productId,
      quantity: 1 + Math.floor(rand() * 3),
      unitPrice: Math.round(rand() * 5000) / 100,
      location,
    });
    const base = { orderId, origin: at.magazine, lines: [line(p1, at.name), line(p2, second.name), line(p3, at.name)] };
    const kind = i % 3 === 2 ? 'cancel' : 'full';
    const snapshots = kind === 'full' ? fullLife(orderId, i, base, rand) : cancelLife(i, base, rand);
    lives.push({ orderId, kind, snapshots, swapped: rand() < 1 / 3 });
  }
  return lives;
}

/**
 * Puts each life's snapshots at increasing random places of the feed (after the records there), two neighbours
 * swapped for a swapped life; a share of the snapshots (`redeliveryRate`) comes again, identical, at the end.
 */
export function placeLives(
  feed: readonly unknown[],
  lives: readonly LifeSpec[],
  o: { seed: number; redeliveryRate: number },
): { feed: unknown[]; again: LifeSnapshot[] } {
  const rand = seededRandom(o.seed * 53 + 7);
  const before: unknown[][] = Array.from({ length: feed.length + 1 }, () => []);
  const again: LifeSnapshot[] = [];
  for (const life of lives) {
    const order = [...life.snapshots];
    if (life.swapped) {
      const k = Math.floor(rand() * (order.length - 1));
      [order[k], order[k + 1]] = [order[k + 1]!, order[k]!];
    }
    const places = order.map(() => Math.floor(rand() * (feed.length + 1))).sort((a, b) => a - b);
    order.forEach((s, k) => before[places[k]!]!.push(s));
    for (const s of order) if (rand() < o.redeliveryRate) again.push(s);
  }
  return { feed: before.flatMap((extra, i) => (i < feed.length ? [...extra, feed[i]] : extra)), again };
}
