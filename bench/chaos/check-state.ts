import type { SandboxState } from '../../src/sandbox/sandbox-entities.js';
import { check, type CheckResult } from './check-types.js';
import { checkLives, lifeStock, returnVariances } from './check-lives.js';
import type { Scenario } from './scenario.js';
import { namesOf, near, onHand, pair, sortedLines } from './state-names.js';

/** Orders and shipments: each good order once, completed, with one shipped shipment of its lines; nothing else. */
export function checkOrders(scenario: Scenario, final: SandboxState): CheckResult[] {
  const names = namesOf(final);
  const ordersById = new Map<string, SandboxState['orders']>();
  for (const o of final.orders) ordersById.set(o.orderId, [...(ordersById.get(o.orderId) ?? []), o]);
  const shipmentsByOrder = new Map<string, SandboxState['shipments']>();
  for (const s of final.shipments) shipmentsByOrder.set(s.primaryOrderUrl, [...(shipmentsByOrder.get(s.primaryOrderUrl) ?? []), s]);

  const orderV: string[] = [];
  const shipV: string[] = [];
  for (const spec of scenario.goodOrders.values()) {
    const found = ordersById.get(spec.orderId) ?? [];
    if (found.length !== 1) {
      orderV.push(`order ${spec.orderId}: ${found.length} orders in the service, expected 1`);
      continue;
    }
    const o = found[0]!;
    if (o.statusId !== 'ORDER_COMPLETED') orderV.push(`order ${spec.orderId}: status ${o.statusId}, expected ORDER_COMPLETED`);
    if (o.originFacilityUrl !== names.facility(spec.origin))
      orderV.push(`order ${spec.orderId}: origin ${o.originFacilityUrl}, expected ${spec.origin}`);
    const want = sortedLines(spec.lines.map((l) => `${l.productId} x${l.quantity} @${l.unitPrice}`));
    const got = sortedLines(o.orderItemList.map((i) => `${i.productId} x${i.quantity} @${i.unitPrice}`));
    if (want !== got) orderV.push(`order ${spec.orderId}: items [${got}], expected [${want}]`);

    const ships = shipmentsByOrder.get(o.orderUrl) ?? [];
    if (ships.length !== 1) {
      shipV.push(`order ${spec.orderId}: ${ships.length} shipments, expected 1`);
      continue;
    }
    const s = ships[0]!;
    if (s.statusId !== 'SHIPMENT_SHIPPED')
      shipV.push(`order ${spec.orderId}: shipment ${s.shipmentId} is ${s.statusId}, expected SHIPMENT_SHIPPED`);
    const wantS = sortedLines(spec.lines.map((l) => `${names.facility(l.location)} ${l.productId} x${l.quantity}`));
    const gotS = sortedLines(s.shipmentItemList.map((i) => `${i.facilityUrl} ${i.productId} x${i.quantity}`));
    if (wantS !== gotS) shipV.push(`order ${spec.orderId}: shipment items [${gotS}], expected [${wantS}]`);
  }
  const known = (id: string) => scenario.goodOrders.has(id) || scenario.lives.has(id);
  const extraOrders = final.orders.filter((o) => !known(o.orderId)).map((o) => `order ${o.orderId} exists but no good record names it`);
  const goodUrls = new Set(final.orders.filter((o) => known(o.orderId)).map((o) => o.orderUrl));
  const strayShipments = final.shipments
    .filter((s) => !goodUrls.has(s.primaryOrderUrl))
    .map((s) => `shipment ${s.shipmentId} belongs to ${s.primaryOrderUrl}, not to a good order`);
  return [
    check('each good order exists once, completed, items as the record', scenario.goodOrders.size, orderV),
    check('each good order has exactly one shipment, shipped, lines as the record', scenario.goodOrders.size, shipV),
    check('no order or shipment for any other id (bad records created nothing)', final.orders.length + final.shipments.length, [
      ...extraOrders,
      ...strayShipments,
    ]),
  ];
}

/**
 * Stock: ordered pairs lose exactly the shipped quantities, each counted pair equals the newest count that lists
 * it (per location and product, not the location's newest count), and every other pair is as it was. Ordered and
 * counted products are kept apart by the scenario: a shipment posted after a count's read would otherwise make
 * the expected stock depend on timing (docs/stock-sync.md, "The race with orders").
 */
export function checkStock(scenario: Scenario, initial: SandboxState, final: SandboxState): CheckResult[] {
  const names = namesOf(initial);
  const before = onHand(initial);
  const after = onHand(final);
  const shipped = new Map<string, number>();
  for (const spec of scenario.goodOrders.values()) {
    for (const l of spec.lines) {
      const k = pair(names.facility(l.location) ?? l.location, names.product(l.productId) ?? l.productId);
      shipped.set(k, (shipped.get(k) ?? 0) + l.quantity);
    }
  }
  for (const [k, q] of lifeStock(scenario, names)) shipped.set(k, (shipped.get(k) ?? 0) + q);
  const counted = new Map<string, { countId: string; quantity: number }>();
  for (const [location, items] of scenario.expectedCounts) {
    for (const [productId, newest] of items)
      counted.set(pair(names.facility(location) ?? location, names.product(productId) ?? productId), newest);
  }
  const shippedV: string[] = [];
  for (const [k, q] of shipped) {
    const want = (before.get(k) ?? 0) - q;
    if (counted.has(k)) shippedV.push(`pair ${k} is both ordered and counted: the scenario must keep them apart`);
    else if (!near(after.get(k) ?? 0, want))
      shippedV.push(`stock of ${k}: ${after.get(k) ?? 0}, expected ${before.get(k) ?? 0} - ${q} shipped (less restocked) = ${want}`);
  }
  const countedV: string[] = [];
  for (const [k, newest] of counted) {
    if (!near(after.get(k) ?? 0, newest.quantity))
      countedV.push(`stock of ${k}: ${after.get(k) ?? 0}, expected ${newest.quantity} of its newest count ${newest.countId}`);
  }
  const otherV: string[] = [];
  const others = new Set([...before.keys(), ...after.keys()].filter((k) => !shipped.has(k) && !counted.has(k)));
  for (const k of others) {
    if (!near(before.get(k) ?? 0, after.get(k) ?? 0))
      otherV.push(`stock of ${k} changed from ${before.get(k) ?? 0} to ${after.get(k) ?? 0}; nothing should touch it`);
  }
  return [
    check('stock of ordered products = initial - shipped + restocked (each taken off once, put back once)', shipped.size, shippedV),
    check('stock of each counted (location, product) = the newest count listing it', counted.size, countedV),
    check('stock of every other (location, product) unchanged', others.size, otherV),
  ];
}

/** Variances: none applied twice, at most the count's chunks per count, each at 19:00 of a count's date. */
export function checkVariances(scenario: Scenario, initial: SandboxState, final: SandboxState, chunkSize: number): CheckResult[] {
  const names = namesOf(initial);
  const countOf = new Map<string, { countId: string; items: number }>();
  for (const rec of scenario.feed['stock-counts'] as Array<{ countId?: string; location?: string; countDate?: string }>) {
    if (!rec.countId || !rec.location || !rec.countDate) continue;
    const items = scenario.counts.get(rec.countId)?.items.size;
    const url = names.facility(rec.location);
    if (items !== undefined && url) countOf.set(`${url} ${rec.countDate}T19:00:00.000`, { countId: rec.countId, items });
  }
  const fresh0 = final.variances.filter((v) => !initial.variances.some((i) => i.physicalInventoryId === v.physicalInventoryId));
  // The lives' returns are checked by checkLives.
  const returns = returnVariances(scenario, initial, fresh0);
  const fresh = fresh0.filter((v) => !returns.has(v.physicalInventoryId));
  const seen = new Map<string, string>();
  const perCount = new Map<string, number>();
  const dupV: string[] = [];
  const shapeV: string[] = [];
  for (const v of fresh) {
    const items = v.inventoryItemVarianceList
      .map((i) => `${i.facilityUrl} ${i.productUrl} ${i.quantityOnHandVar}`)
      .sort()
      .join(',');
    const sig = `${v.facilityUrl} ${v.physicalInventoryDate} ${items}`;
    const twin = seen.get(sig);
    if (twin)
      dupV.push(
        `variances ${twin} and ${v.physicalInventoryId} are identical (${v.facilityUrl} ${v.physicalInventoryDate}): applied twice`,
      );
    seen.set(sig, v.physicalInventoryId);
    const when = v.physicalInventoryDate.replace(/(T\d\d:\d\d:\d\d)$/, '$1.000');
    const count = countOf.get(`${v.facilityUrl} ${when}`);
    if (!count)
      shapeV.push(
        `variance ${v.physicalInventoryId} (${v.facilityUrl} ${v.physicalInventoryDate}) matches no count's location and date at 19:00`,
      );
    else perCount.set(count.countId, (perCount.get(count.countId) ?? 0) + 1);
    if (v.statusId !== 'PHSCL_INV_COMMITTED') shapeV.push(`variance ${v.physicalInventoryId}: status ${v.statusId}`);
    if (v.inventoryItemVarianceList.length > chunkSize)
      shapeV.push(`variance ${v.physicalInventoryId}: ${v.inventoryItemVarianceList.length} items, more than a chunk (${chunkSize})`);
  }
  const chunkV: string[] = [];
  for (const [countId, n] of perCount) {
    const max = Math.ceil((scenario.counts.get(countId)?.items.size ?? 0) / chunkSize);
    if (n > max) chunkV.push(`count ${countId}: ${n} variances, at most ${max} (its chunks)`);
  }
  return [
    check('no variance applied twice (same facility, date and items)', fresh.length, dupV),
    check('variances per count <= its chunks', perCount.size, chunkV),
    check('each variance committed, at 19:00 of a count, within a chunk', fresh.length, shapeV),
  ];
}

/** BOMs: each parent's only MANUF_COMPONENT entry lists the record's components; other products untouched. */
export function checkBoms(scenario: Scenario, initial: SandboxState, final: SandboxState): CheckResult[] {
  const names = namesOf(initial);
  const bomV: string[] = [];
  const byId = new Map(final.products.map((p) => [p.productId, p]));
  for (const [productId, components] of scenario.expectedBoms) {
    const entries = (byId.get(productId)?.productAssocList ?? []).filter((a) => a.productAssocTypeId === 'MANUF_COMPONENT');
    if (entries.length !== 1) {
      bomV.push(`BOM of ${productId}: ${entries.length} MANUF_COMPONENT entries, expected exactly 1`);
      continue;
    }
    const want = sortedLines(components.map((c) => `${names.product(c.productId)} x${c.quantity}`));
    const got = sortedLines(entries[0]!.productAssocItemList.map((i) => `${i.productUrl} x${i.quantity}`));
    if (want !== got) bomV.push(`BOM of ${productId}: [${got}], expected [${want}]`);
  }
  const otherV: string[] = [];
  const before = new Map(initial.products.map((p) => [p.productId, JSON.stringify(p.productAssocList)]));
  let others = 0;
  for (const p of final.products) {
    if (scenario.expectedBoms.has(p.productId)) continue;
    others++;
    if (before.get(p.productId) !== JSON.stringify(p.productAssocList))
      otherV.push(`product ${p.productId}: productAssocList changed though no good BOM names it`);
  }
  if (final.products.length !== initial.products.length)
    otherV.push(`products: ${initial.products.length} before, ${final.products.length} after`);
  return [
    check('each BOM parent has exactly one MANUF_COMPONENT entry, equal to the record', scenario.expectedBoms.size, bomV),
    check('products without a good BOM record unchanged', others, otherV),
  ];
}

/** Every rule over the service's final state. */
export function checkState(scenario: Scenario, initial: SandboxState, final: SandboxState, chunkSize: number): CheckResult[] {
  return [
    ...checkOrders(scenario, final),
    ...checkLives(scenario, initial, final),
    ...checkStock(scenario, initial, final),
    ...checkVariances(scenario, initial, final, chunkSize),
    ...checkBoms(scenario, initial, final),
  ];
}
