/**
 * The baseline for the order figures: the same kind of orders synced by a plain sequential client, one call
 * after another, no queue and no workers, under the same POST budget and latency (`npm run bench` divides
 * the workers' rate by this one).
 *
 *   npx tsx bench/baseline-sequential.ts [--budget 1200] [--latency 50] [--seconds 40] [--profile observed|spec]
 */
import { pathToFileURL } from 'node:url';
import { RequestBudget } from '../src/client/budget/budget.js';
import type { FacilityRow, ProductRow } from '../src/client/answers/schemas.js';
import { ServiceClient } from '../src/client/service-client.js';
import { createRedis, deleteKeysUnder, redisKeys } from '../src/redis/connection.js';
import { parseProfile } from '../src/sandbox/profile-rules.js';
import type { SandboxProfile } from '../src/sandbox/sandbox-options.js';
import { startSandbox } from '../src/sandbox/sandbox.js';
import { benchOrders, type BenchOrder } from './lib/order-records.js';

export interface BaselineOptions {
  /** POST budget a minute, on the sandbox (fixed 1-minute windows) and the client. Default 1 200. */
  budgetPerMinute?: number;
  /** Latency the sandbox adds to every answer, ms, plus up to a fifth of it as jitter (as bench/orders-throughput.ts). Default 0. */
  latencyMs?: number;
  /** Length of the measurement, s. Default 40. */
  seconds?: number;
  /** How the sandbox answers. Default: sandboxDefaults.profile. */
  profile?: SandboxProfile;
  redisUrl?: string;
}

export interface BaselineFigures {
  budgetPerMinute: number;
  latencyMs: number;
  seconds: number;
  orders: number;
  ordersPerMinute: number;
  /** budget / 4. */
  boundPerMinute: number;
  rateLimited: number;
}

type Names = { facility: Map<string, string>; product: Map<string, string> };

function namesOf(facilities: FacilityRow[], products: ProductRow[]): Names {
  const byUrl = new Map(facilities.map((f) => [f.facilityUrl, f]));
  const facility = new Map<string, string>();
  for (const f of facilities) {
    const parent = f.parentFacilityUrl ? byUrl.get(f.parentFacilityUrl) : undefined;
    facility.set(parent ? `${parent.facilityName} / ${f.facilityName}` : String(f.facilityName), f.facilityUrl);
  }
  return { facility, product: new Map(products.map((p) => [p.productId, p.productUrl])) };
}

/** One order the plain way: create the order, create its shipment, ship it, complete the order. */
async function syncOrder(client: ServiceClient, names: Names, r: BenchOrder): Promise<void> {
  const items = r.lines.map((l) => ({ productId: l.productId, productUrl: names.product.get(l.productId)!, quantity: l.quantity }));
  const order = await client.createOrder({
    orderId: r.orderId,
    orderTypeId: 'SALES_ORDER',
    originFacilityUrl: names.facility.get(r.origin)!,
    orderItemList: r.lines.map((l, i) => ({ ...items[i]!, unitPrice: l.unitPrice })),
  });
  const shipment = await client.createShipment({
    shipmentIdUser: `${r.orderId}-1`,
    shipmentTypeId: 'SALES_SHIPMENT',
    primaryOrderUrl: order.orderUrl,
    statusId: 'SHIPMENT_INPUT',
    shipmentItemList: r.lines.map((l, i) => ({ ...items[i]!, facilityUrl: names.facility.get(l.location)! })),
  });
  await client.modifyShipment(shipment.shipmentUrl, { statusId: 'SHIPMENT_SHIPPED' });
  if (!order.actionUrlComplete) throw new Error(`order ${r.orderId}: the service gave no actionUrlComplete`);
  await client.completeOrder(order.actionUrlComplete);
}

export async function runBaseline(o: BaselineOptions = {}): Promise<BaselineFigures> {
  const budget = o.budgetPerMinute ?? 1_200;
  const latencyMs = o.latencyMs ?? 0;
  const seconds = o.seconds ?? 40;
  const sandbox = await startSandbox({
    data: 'demo',
    profile: o.profile,
    budgets: { post: { limit: budget, windowMs: 60_000 } },
    latency: latencyMs ? { ms: latencyMs, jitterMs: Math.round(latencyMs / 5) } : null,
  });
  const redis = createRedis(o.redisUrl ?? 'redis://127.0.0.1:6379');
  const prefix = `bench-baseline-${process.pid}-${Date.now()}`;
  const requestBudget = new RequestBudget({
    redis,
    keys: redisKeys(prefix),
    budgets: { postPerMinute: budget, getPerMinute: budget, collectionPerHour: 300, headroom: 0.98 },
  });
  const client = new ServiceClient({
    baseUrl: sandbox.url,
    account: sandbox.account,
    apiKey: sandbox.key,
    apiSecret: sandbox.secret,
    budget: requestBudget,
  });
  try {
    const names = namesOf(await client.listFacilities(), await client.listProducts());
    const records = benchOrders(`BASE-${Date.now()}`, Math.ceil((budget / 4 / 60) * (seconds + 10)) + 20);
    let done = 0;
    const t0 = performance.now();
    const until = t0 + seconds * 1000;
    for (const r of records) {
      if (performance.now() >= until) break;
      await syncOrder(client, names, r);
      done++;
    }
    const s = (performance.now() - t0) / 1000;
    return {
      budgetPerMinute: budget,
      latencyMs,
      seconds: Math.round(s),
      orders: done,
      ordersPerMinute: Math.round((done / s) * 60 * 10) / 10,
      boundPerMinute: budget / 4,
      rateLimited: sandbox.admin.counters().rateLimited,
    };
  } finally {
    await client.close();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
    await sandbox.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : undefined;
  };
  const i = process.argv.indexOf('--profile');
  const profile = i > 0 ? parseProfile(process.argv[i + 1] ?? '') : undefined;
  const f = await runBaseline({ budgetPerMinute: arg('budget'), latencyMs: arg('latency'), seconds: arg('seconds'), profile });
  console.log(
    `baseline: ${f.ordersPerMinute} orders/min sequentially at ${f.budgetPerMinute} POST/min, ${f.latencyMs} ms latency (bound ${f.boundPerMinute}/min); 429s: ${f.rateLimited}`,
  );
  console.log(JSON.stringify(f));
}
