import { describe, expect, it } from 'vitest';
import { bomRepair } from '../../jobs/boms/repair-boms.js';
import { orderRepair } from '../../jobs/orders/repair-orders.js';
import { stockRepair } from '../../jobs/stock/repair-stock-rule.js';
import type { Drift } from '../../src/ops/reconcile-types.js';
import type { RepairRule } from '../../src/ops/repair-rule.js';

const drift = (stream: string, kind: string, extra: Partial<Drift> = {}): Drift => ({
  stream,
  kind,
  key: 'K-1',
  field: 'f',
  service: 's',
  synced: 'x',
  ...extra,
});

/** What each rule makes of the drifts of one record: kind → action. */
function actions(rule: RepairRule, drifts: Drift[]): Record<string, string> {
  const plan = rule.plan(drifts);
  return Object.fromEntries([...plan.repairs.map((r) => [r.drift.kind, 'repair']), ...plan.left.map((l) => [l.drift.kind, l.action])]);
}

describe('repair rules', () => {
  const cases: Array<[string, RepairRule, Drift[], Record<string, string>]> = [
    [
      'an order not completed',
      orderRepair,
      [drift('orders', 'order-not-completed', { service: 'ORDER_CREATED' })],
      { 'order-not-completed': 'repair' },
    ],
    [
      'a cancelled order',
      orderRepair,
      [drift('orders', 'order-not-completed', { service: 'ORDER_CANCELLED' })],
      { 'order-not-completed': 'by-hand' },
    ],
    ['a shipment not shipped', orderRepair, [drift('orders', 'shipment-not-shipped')], { 'shipment-not-shipped': 'repair' }],
    [
      'a shipment missing under an open order',
      orderRepair,
      [drift('orders', 'order-not-completed', { service: 'ORDER_CREATED' }), drift('orders', 'shipment-missing')],
      { 'order-not-completed': 'repair', 'shipment-missing': 'repair' },
    ],
    ['a shipment missing under a completed order', orderRepair, [drift('orders', 'shipment-missing')], { 'shipment-missing': 'by-hand' }],
    ['an order missing', orderRepair, [drift('orders', 'order-missing')], { 'order-missing': 'repair' }],
    ['an extra shipment', orderRepair, [drift('orders', 'shipment-extra')], { 'shipment-extra': 'by-hand' }],
    [
      'other lines beside an open order: the person first',
      orderRepair,
      [drift('orders', 'order-lines'), drift('orders', 'order-not-completed', { service: 'ORDER_CREATED' })],
      { 'order-lines': 'by-hand', 'order-not-completed': 'skipped' },
    ],
    ['a BOM that differs', bomRepair, [drift('boms', 'bom-differs')], { 'bom-differs': 'repair' }],
    [
      'a BOM with no entry',
      bomRepair,
      [drift('boms', 'bom-missing', { field: 'productAssocList (MANUF_COMPONENT)' })],
      { 'bom-missing': 'repair' },
    ],
    ['a BOM whose product is gone', bomRepair, [drift('boms', 'bom-missing', { field: 'product' })], { 'bom-missing': 'by-hand' }],
    ['an extra BOM entry', bomRepair, [drift('boms', 'bom-extra-entries')], { 'bom-extra-entries': 'by-hand' }],
  ];
  it.each(cases)('%s', (_name, rule, drifts, expected) => {
    expect(actions(rule, drifts)).toEqual(expected);
  });

  it('stock: one job that sets each drifted pair back to the on-hand reconcile expected, behind --include-stock', () => {
    const target = { facilityUrl: '/a/api/facility/1', productUrl: '/a/api/product/P', productId: 'P', quantity: 7 };
    const plan = stockRepair.plan([drift('stock-counts', 'stock-differs', { difference: -3, synced: '7', target })]);
    expect(plan.targets).toEqual([target]);
    expect(plan.repairs[0]!.what).toBe('a variance of +3 back to 7');
    expect(stockRepair.optIn?.option).toBe('include-stock');
    const blind = stockRepair.plan([drift('stock-counts', 'stock-differs')]);
    expect(blind.left).toMatchObject([{ action: 'by-hand' }]);
    expect(blind.targets).toBeUndefined();
  });
});
