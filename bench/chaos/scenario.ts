/**
 * A deterministic chaos scenario: orders, stock counts and BOMs over the sandbox's demo data, with
 * re-deliveries and bad records, part of the orders in an NDJSON file to import, plus what the service must hold
 * once everything is synced.
 */
import { jobIdFor } from '../../src/queue/job-id.js';
import type { ProgramStream } from '../../jobs/kinds.js';
import { seededRandom } from '../../src/sandbox/seeded-random.js';
import { buildImportPlan, type ImportPlan } from './import-plan.js';
import { buildLives, placeLives, type LifeSpec } from './life-scenario.js';
import { poisonRecords } from './poison.js';
import type { BadRecord, OrderSpec } from './scenario-records.js';
import { programKinds } from '../../jobs/kinds.js';
import { kindOf } from '../../src/records/records.js';

export interface ScenarioOptions {
  orders: number;
  /** Counts per location; each location gets this many dates, delivered in a shuffled order. */
  countsPerLocation: number;
  /** Fraction of the count products in each location's pool (0..1); each count lists part of its pool. */
  countShare: number;
  boms: number;
  /** Fraction of good records delivered a second time, later in the feed. */
  redeliveryRate: number;
  /** Rounds of bad records: each adds 6 orders and 4 counts (the first also 2 BOMs), each naming its field. */
  badPerStream: number;
  /** Fraction of the good orders delivered through an NDJSON file (`inventory-sync import`) instead of the feed (0..1). */
  importShare: number;
  /** Order lives beside the good orders, as a share of them (bench/chaos/life-scenario.ts); 0 leaves them out. */
  lifeShare?: number;
  seed: number;
}

export interface Scenario {
  feed: { orders: unknown[]; 'stock-counts': unknown[]; boms: unknown[] };
  goodOrders: Map<string, OrderSpec>;
  /** Orders told as snapshots (their life), by orderId; delivered through the feed only. */
  lives: Map<string, LifeSpec>;
  /** location name -> productId -> the newest count that lists the product there, and its quantity. */
  expectedCounts: Map<string, Map<string, { countId: string; quantity: number }>>;
  /** The good counts by countId (a count may post at most ceil(items / chunk size) variances). */
  counts: Map<string, CountSpec>;
  expectedBoms: Map<string, Array<{ productId: string; quantity: number }>>;
  bad: BadRecord[];
  redelivered: number;
  /** The NDJSON file of orders the run imports, if any (its bad records are in `bad` too; `fedAfter` is not in `feed`). */
  imported?: ImportPlan;
}

export interface CountSpec {
  countId: string;
  location: string;
  countDate: string;
  /** productId -> counted quantity. */
  items: Map<string, number>;
}

const sku = (n: number) => `SKU-${String(n).padStart(4, '0')}`;
const MAIN = 'Main Warehouse';
const NORTH = 'North Depot';
const LOCATIONS = [
  ...['A-01', 'A-02', 'A-03', 'A-04', 'A-05', 'A-06'].map((l) => ({ magazine: MAIN, name: `${MAIN} / ${l}` })),
  ...['N-01', 'N-02', 'N-03', 'N-04'].map((l) => ({ magazine: NORTH, name: `${NORTH} / ${l}` })),
];
/** Orders, counts and BOM parents use disjoint products so that expected stock is exact. */
const ORDER_PRODUCTS = Array.from({ length: 80 }, (_, i) => sku(i + 1));
const COUNT_PRODUCTS = Array.from({ length: 60 }, (_, i) => sku(i + 101));
const BOM_PARENTS = Array.from({ length: 30 }, (_, i) => sku(i + 171));

export function buildScenario(o: ScenarioOptions): Scenario {
  const rand = seededRandom(o.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const scenario: Scenario = {
    feed: { orders: [], 'stock-counts': [], boms: [] },
    goodOrders: new Map(),
    lives: new Map(),
    expectedCounts: new Map(),
    counts: new Map(),
    expectedBoms: new Map(),
    bad: [],
    redelivered: 0,
  };
  const later: Array<{ stream: keyof Scenario['feed']; record: unknown }> = [];
  // Imported orders: evenly spread; the ones picked for a re-delivery come through the feed too (across routes),
  // alternately at their place in the feed (before the import) and once the import has run (after it).
  const isImported = (i: number) => Math.floor(i * o.importShare) > Math.floor((i - 1) * o.importShare);
  const importGood: OrderSpec[] = [];
  const crossRoute = new Set<string>();
  const fedAfter: OrderSpec[] = [];

  for (let i = 1; i <= o.orders; i++) {
    const loc = pick(LOCATIONS);
    const lineCount = 1 + Math.floor(rand() * 3);
    const products = new Set<string>();
    while (products.size < lineCount) products.add(pick(ORDER_PRODUCTS));
    const spec: OrderSpec = {
      orderId: `CH-${o.seed}-${String(i).padStart(6, '0')}`,
      origin: loc.magazine,
      lines: [...products].map((productId) => ({
        productId,
        quantity: 1 + Math.floor(rand() * 3),
        unitPrice: Math.round(rand() * 5000) / 100,
        location: loc.name,
      })),
    };
    scenario.goodOrders.set(spec.orderId, spec);
    const again = rand() < o.redeliveryRate;
    if (!isImported(i)) {
      scenario.feed.orders.push(spec);
      if (again) later.push({ stream: 'orders', record: spec });
      continue;
    }
    importGood.push(spec);
    if (!again) continue;
    crossRoute.add(spec.orderId);
    if (crossRoute.size % 2 === 1) scenario.feed.orders.push(spec);
    else fedAfter.push(spec);
  }

  // Counts: each location has a pool of products and several dates; each count is a cycle count of part of the
  // pool, so counts of one location share some products (the newest listing a product decides it) and not others
  // (an older count must still set those). Delivered in a shuffled order, so older counts often come after newer.
  for (const loc of LOCATIONS) {
    const pool = COUNT_PRODUCTS.filter(() => rand() < o.countShare);
    if (pool.length === 0) pool.push(COUNT_PRODUCTS[0] as string);
    const dates = Array.from({ length: o.countsPerLocation }, (_, d) => `2026-10-${String(d + 1).padStart(2, '0')}`);
    const counts = dates.map((countDate, d) => {
      const listed = pool.filter(() => rand() < 0.6);
      if (listed.length === 0) listed.push(pick(pool));
      const items = listed.map((productId) => ({ productId, quantity: Math.floor(rand() * 50) }));
      return { countId: `CNT-${o.seed}-${loc.name.replace(/[^A-Za-z0-9]+/g, '')}-${d}`, location: loc.name, countDate, items };
    });
    const expected = new Map<string, { countId: string; quantity: number }>();
    for (const c of counts) {
      for (const it of c.items) expected.set(it.productId, { countId: c.countId, quantity: it.quantity });
      scenario.counts.set(c.countId, {
        countId: c.countId,
        location: c.location,
        countDate: c.countDate,
        items: new Map(c.items.map((it) => [it.productId, it.quantity])),
      });
    }
    scenario.expectedCounts.set(loc.name, expected);
    for (let i = counts.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [counts[i], counts[j]] = [counts[j] as (typeof counts)[number], counts[i] as (typeof counts)[number]];
    }
    scenario.feed['stock-counts'].push(...counts);
    for (const c of counts) if (rand() < o.redeliveryRate) later.push({ stream: 'stock-counts', record: c });
  }

  for (let i = 0; i < Math.min(o.boms, BOM_PARENTS.length); i++) {
    const productId = BOM_PARENTS[i] as string;
    const components = new Set<string>();
    const n = 1 + Math.floor(rand() * 3);
    while (components.size < n) components.add(pick(ORDER_PRODUCTS));
    const rec = { productId, components: [...components].map((c) => ({ productId: c, quantity: 1 + Math.floor(rand() * 4) })) };
    scenario.expectedBoms.set(productId, rec.components);
    scenario.feed.boms.push(rec);
    if (rand() < o.redeliveryRate) later.push({ stream: 'boms', record: rec });
  }

  for (let b = 0; b < o.badPerStream; b++) {
    for (const bad of badRecords(o.seed, b)) {
      scenario.bad.push(bad);
      scenario.feed[bad.stream].splice(Math.floor(rand() * scenario.feed[bad.stream].length), 0, bad.record);
    }
  }

  // Poison (raw bytes) with the bad records, put between good ones so the rule can see they failed alone.
  if (o.badPerStream > 0) {
    for (const p of poisonRecords(o.seed)) {
      scenario.bad.push(p);
      const feed = scenario.feed[p.stream];
      feed.splice(1 + Math.floor(rand() * Math.max(1, feed.length - 1)), 0, p.record);
    }
  }

  // Lives last, with their own random numbers: the plain records of a seed stay what they were.
  const lives = buildLives({
    seed: o.seed,
    count: Math.round(o.orders * (o.lifeShare ?? 0)),
    locations: LOCATIONS,
    products: ORDER_PRODUCTS,
  });
  for (const life of lives) scenario.lives.set(life.orderId, life);
  const placed = placeLives(scenario.feed.orders, lives, { seed: o.seed, redeliveryRate: o.redeliveryRate });
  scenario.feed.orders = placed.feed;
  for (const s of placed.again) later.push({ stream: 'orders', record: s });

  for (const l of later) scenario.feed[l.stream].push(l.record);
  scenario.redelivered = later.length;
  if (importGood.length > 0) {
    const where = LOCATIONS[0] as (typeof LOCATIONS)[number];
    scenario.imported = buildImportPlan({
      seed: o.seed,
      good: importGood,
      crossRoute,
      fedAfter,
      withBad: o.badPerStream > 0,
      where,
      product: sku(1),
    });
    scenario.bad.push(...scenario.imported.bad);
  }
  return scenario;
}

/** Every record a stream delivers, by the feed and by the import, repeats included (poison ones as raw bytes). */
export function deliveredRecords(scenario: Scenario, stream: ProgramStream): unknown[] {
  const imported = scenario.imported?.stream === stream ? scenario.imported.records : [];
  return [...scenario.feed[stream], ...imported];
}

/** The job id a bad record must have become. */
export function badJobId(b: BadRecord): string {
  return b.jobId ?? jobIdFor(kindOf(programKinds, b.stream), b.record);
}

/** Bad records of round b: each names the field its failure must name. Keys are unique per round. */
function badRecords(seed: number, b: number): BadRecord[] {
  const loc = LOCATIONS[b % LOCATIONS.length] as (typeof LOCATIONS)[number];
  const id = (tag: string) => `BAD-${seed}-${b}-${tag}`;
  const line = (over: Record<string, unknown> = {}) => ({ productId: sku(1), quantity: 1, unitPrice: 1, location: loc.name, ...over });
  const order = (tag: string, field: string, over: Record<string, unknown>): BadRecord => ({
    stream: 'orders',
    via: 'feed',
    key: id(tag),
    field,
    record: { orderId: id(tag), origin: loc.magazine, lines: [line()], ...over },
  });
  const count = (tag: string, field: string, over: Record<string, unknown>): BadRecord => ({
    stream: 'stock-counts',
    via: 'feed',
    key: id(tag),
    field,
    record: {
      countId: id(tag),
      location: loc.name,
      countDate: '2026-10-01',
      items: [{ productId: COUNT_PRODUCTS[0], quantity: 1 }],
      ...over,
    },
  });
  const out: BadRecord[] = [
    order('P', 'lines.0.productId', { lines: [line({ productId: 'NO-SUCH-SKU' })] }),
    order('O', 'origin', { origin: loc.name }),
    order('Q', 'lines.0.quantity', { lines: [line({ quantity: -2 })] }),
    order('L', 'lines.0.location', { lines: [line({ location: `${loc.magazine} / Z-99` })] }),
    order('M', 'lines.0.location', { lines: [line({ location: loc.magazine })] }),
    count('L', 'location', { location: 'Nowhere / Z-99' }),
    count('D', 'countDate', { countDate: '2026-13-45' }),
    count('P', 'items.0.productId', { items: [{ productId: 'NO-SUCH-SKU', quantity: 3 }] }),
    count('M', 'location', { location: loc.magazine }),
  ];
  // A record without its key: the job is named by its hash, and the failure names the missing field.
  const keyless = { origin: loc.magazine, lines: [line({ quantity: 1 + b })] };
  out.push({ stream: 'orders', via: 'feed', key: `(no orderId #${b})`, field: 'orderId', record: keyless });
  if (b === 0) {
    out.push({
      stream: 'boms',
      via: 'feed',
      key: sku(1),
      field: 'components.0.productId',
      record: { productId: sku(1), components: [{ productId: 'NO-SUCH-PART', quantity: 1 }] },
    });
    out.push({
      stream: 'boms',
      via: 'feed',
      key: 'NO-SUCH-PARENT',
      field: 'productId',
      record: { productId: 'NO-SUCH-PARENT', components: [{ productId: sku(2), quantity: 1 }] },
    });
  }
  return out;
}
