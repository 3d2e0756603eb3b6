import type { SandboxState } from '../../src/sandbox/sandbox-entities.js';
import type { SandboxCounters } from '../../src/sandbox/counters.js';
import { check, type CheckResult } from './check-types.js';
import { newestOf, type LifeSnapshot, type LifeSpec } from './life-scenario.js';
import type { Scenario } from './scenario.js';
import { namesOf, pair, sortedLines, type Names } from './state-names.js';

const STATUS: Record<LifeSnapshot['status'], string> = {
  open: 'ORDER_LOCKED',
  fulfilled: 'ORDER_COMPLETED',
  cancelled: 'ORDER_CANCELLED',
};

type Variance = SandboxState['variances'][number];
type Return = NonNullable<LifeSnapshot['returns']>[number];

const itemsOf = (lines: ReadonlyArray<{ productId: string; quantity: number; unitPrice: number }>) =>
  sortedLines(lines.map((l) => `${l.productId} x${l.quantity} @${l.unitPrice}`));
const at19 = (returnedAt: string) => `${returnedAt.slice(0, 10)}T19:00:00.000`;
const dateOf = (v: Variance) => v.physicalInventoryDate.replace(/(T\d\d:\d\d:\d\d)$/, '$1.000');

/** Where a return's variance goes: "facilityUrl date" of its lines' location at 19:00 of its day. */
function returnPlaces(r: Return, names: Names): string[] {
  return [...new Set(r.lines.map((l) => `${names.facility(l.location) ?? l.location} ${at19(r.returnedAt)}`))];
}

/** The variances the lives' returns made (by place and day): the counts' rules leave them to checkLives. */
export function returnVariances(scenario: Scenario, initial: SandboxState, variances: Variance[]): Set<string> {
  const names = namesOf(initial);
  const places = new Set([...scenario.lives.values()].flatMap((l) => (newestOf(l).returns ?? []).flatMap((r) => returnPlaces(r, names))));
  return new Set(variances.filter((v) => places.has(`${v.facilityUrl} ${dateOf(v)}`)).map((v) => v.physicalInventoryId));
}

/** Units the lives take off each (facility, product) pair: their newest snapshot's fulfillments less what came back to stock. */
export function lifeStock(scenario: Scenario, names: Names): Map<string, number> {
  const out = new Map<string, number>();
  const add = (l: { productId: string; location: string }, q: number) => {
    const k = pair(names.facility(l.location) ?? l.location, names.product(l.productId) ?? l.productId);
    out.set(k, (out.get(k) ?? 0) + q);
  };
  for (const life of scenario.lives.values()) {
    const s = newestOf(life);
    for (const l of s.lines) add(l, 0);
    for (const f of s.fulfillments ?? []) for (const l of f.lines) add(l, l.quantity);
    for (const r of s.returns ?? []) if (r.restock) for (const l of r.lines) add(l, -l.quantity);
  }
  return out;
}

/** The order of a life: once, in its newest snapshot's status, its items; a cancelled one may never have been created. */
function orderOf(life: LifeSpec, found: SandboxState['orders'], names: Names, v: string[]): SandboxState['orders'][number] | undefined {
  const s = newestOf(life);
  if (found.length === 0 && s.status === 'cancelled') return undefined;
  if (found.length !== 1) {
    v.push(`life ${life.orderId}: ${found.length} orders in the service, expected 1`);
    return undefined;
  }
  const o = found[0]!;
  if (o.statusId !== STATUS[s.status]) v.push(`life ${life.orderId}: status ${o.statusId}, expected ${STATUS[s.status]} (${s.status})`);
  if (o.originFacilityUrl !== names.facility(s.origin)) v.push(`life ${life.orderId}: origin ${o.originFacilityUrl}, expected ${s.origin}`);
  const got = itemsOf(o.orderItemList);
  // A cancel is not preceded by an edit: a cancelled order keeps the lines of whichever snapshot created or last edited it.
  const wanted = s.status === 'cancelled' ? life.snapshots.map((x) => itemsOf(x.lines)) : [itemsOf(s.lines)];
  if (!wanted.includes(got)) v.push(`life ${life.orderId}: items [${got}], expected [${wanted.join('] or [')}]`);
  return o;
}

/** Each fulfillment of the newest snapshot: one live shipment named by it, shipped, its lines; no other live one. */
function shipmentsOf(life: LifeSpec, order: SandboxState['orders'][number] | undefined, final: SandboxState, names: Names, v: string[]) {
  const live = order ? final.shipments.filter((s) => s.primaryOrderUrl === order.orderUrl && s.statusId !== 'SHIPMENT_CANCELLED') : [];
  const fulfillments = newestOf(life).fulfillments ?? [];
  for (const f of fulfillments) {
    const named = live.filter((s) => s.shipmentIdUser === f.fulfillmentId);
    if (named.length !== 1) {
      v.push(`life ${life.orderId}: ${named.length} live shipments named ${f.fulfillmentId}, expected 1`);
      continue;
    }
    const s = named[0]!;
    if (s.statusId !== 'SHIPMENT_SHIPPED')
      v.push(`life ${life.orderId}: shipment ${f.fulfillmentId} is ${s.statusId}, expected SHIPMENT_SHIPPED`);
    const want = sortedLines(f.lines.map((l) => `${names.facility(l.location)} ${l.productId} x${l.quantity}`));
    const got = sortedLines(s.shipmentItemList.map((i) => `${i.facilityUrl} ${i.productId} x${i.quantity}`));
    if (want !== got) v.push(`life ${life.orderId}: shipment ${f.fulfillmentId} items [${got}], expected [${want}]`);
  }
  const named_ = new Set(fulfillments.map((f) => f.fulfillmentId));
  for (const s of live.filter((x) => !named_.has(x.shipmentIdUser ?? '')))
    v.push(
      `life ${life.orderId}: live shipment ${s.shipmentId} (${s.shipmentIdUser ?? 'no name'}, ${s.statusId}) is no fulfillment of its newest snapshot`,
    );
  return fulfillments.length;
}

/** Each restocked return: exactly one variance at its place and day with its lines; none for a return without restock. */
function returnsOf(life: LifeSpec, fresh: Variance[], names: Names, v: string[]): number {
  const returns = newestOf(life).returns ?? [];
  for (const r of returns) {
    const at = new Set(returnPlaces(r, names));
    const found = fresh.filter((x) => at.has(`${x.facilityUrl} ${dateOf(x)}`));
    if (!r.restock) {
      if (found.length) v.push(`life ${life.orderId}: return ${r.returnId} (no restock) has ${found.length} variance(s), expected none`);
      continue;
    }
    if (found.length !== 1) {
      v.push(`life ${life.orderId}: return ${r.returnId} has ${found.length} variances, expected exactly 1`);
      continue;
    }
    const want = sortedLines(r.lines.map((l) => `${names.product(l.productId)} +${l.quantity}`));
    const got = sortedLines(found[0]!.inventoryItemVarianceList.map((i) => `${i.productUrl} +${i.quantityOnHandVar}`));
    if (want !== got) v.push(`life ${life.orderId}: return ${r.returnId}'s variance [${got}], expected [${want}]`);
    if (found[0]!.statusId !== 'PHSCL_INV_COMMITTED')
      v.push(`life ${life.orderId}: return ${r.returnId}'s variance is ${found[0]!.statusId}`);
  }
  return returns.length;
}

/** The lives' rules over the service's final state (their stock is in checkStock, beside the plain orders'). */
export function checkLives(scenario: Scenario, initial: SandboxState, final: SandboxState): CheckResult[] {
  const names = namesOf(initial);
  const fresh = final.variances.filter((v) => !initial.variances.some((i) => i.physicalInventoryId === v.physicalInventoryId));
  const orderV: string[] = [];
  const shipV: string[] = [];
  const returnV: string[] = [];
  let parts = 0;
  let returns = 0;
  let never = 0;
  for (const life of scenario.lives.values()) {
    const found = final.orders.filter((o) => o.orderId === life.orderId);
    if (found.length === 0 && newestOf(life).status === 'cancelled') never++;
    const order = orderOf(life, found, names, orderV);
    parts += shipmentsOf(life, order, final, names, shipV);
    returns += returnsOf(life, fresh, names, returnV);
  }
  const shipmentsOfOrder = (url: string) => final.shipments.filter((s) => s.primaryOrderUrl === url);
  const cancelled = final.orders.filter((o) => o.statusId === 'ORDER_CANCELLED');
  const cancelV = cancelled
    .filter((o) => o.shipmentUrlList.length > 0 || shipmentsOfOrder(o.orderUrl).length > 0)
    .map(
      (o) =>
        `order ${o.orderId} is cancelled with shipment(s) ${shipmentsOfOrder(o.orderUrl)
          .map((s) => `${s.shipmentIdUser} (${s.statusId})`)
          .join(', ')}`,
    );
  return [
    check(
      `each order life exists once, in its newest snapshot's status, items as its lines (${never} cancelled before they were created)`,
      scenario.lives.size,
      orderV,
    ),
    check('each fulfillment of a life: one live shipment named by it, shipped, its lines; no other live shipment', parts, shipV),
    check('each restocked return: exactly one variance, its lines at 19:00 of its day; none without restock', returns, returnV),
    check('no cancelled order has a shipment (no cancel of a shipped part)', cancelled.length, cancelV),
  ];
}

/** The service's counters: one order create per good order and per life it holds, one shipment create per shipment wanted. */
export function createdOnce(scenario: Scenario, final: SandboxState, counters: Pick<SandboxCounters, 'creates'>): CheckResult {
  const present = [...scenario.lives.values()].filter((l) => final.orders.some((o) => o.orderId === l.orderId));
  const orders = scenario.goodOrders.size + present.length;
  const shipments = scenario.goodOrders.size + present.reduce((n, l) => n + (newestOf(l).fulfillments?.length ?? 0), 0);
  const of = `${scenario.goodOrders.size} good orders and ${present.length} lives in the service`;
  return check('the service created each good order, life and shipment once (its counters)', 2, [
    ...(counters.creates.order === orders ? [] : [`${counters.creates.order} order creates for ${of}, expected ${orders}`]),
    ...(counters.creates.shipment === shipments ? [] : [`${counters.creates.shipment} shipment creates for ${of}, expected ${shipments}`]),
  ]);
}
