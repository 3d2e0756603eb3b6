import { describe, expect, it } from 'vitest';
import { bomKind } from '../../jobs/boms/bom-kind.js';
import { orderKind } from '../../jobs/orders/order-kind.js';
import { stockCountKind } from '../../jobs/stock/stock-count-kind.js';
import { beforeGoLive } from '../../src/queue/go-live.js';

const orders = { since: '2026-02-01', setting: 'SYNC_ORDERS_SINCE' };
const counts = { since: '2026-02-01', setting: 'SYNC_COUNTS_SINCE' };

describe('the go-live floor', () => {
  it('skips an order dated before the floor, saying the date and the floor', () => {
    expect(beforeGoLive(orderKind, { orderDate: '2026-01-31T23:59:59' }, orders)).toBe(
      'before go-live: orderDate 2026-01-31T23:59:59 is before SYNC_ORDERS_SINCE 2026-02-01',
    );
  });

  it("syncs an order on the floor's day, from its first second, and after it", () => {
    expect(beforeGoLive(orderKind, { orderDate: '2026-02-01T00:00:00' }, orders)).toBeUndefined();
    expect(beforeGoLive(orderKind, { orderDate: '2026-02-01T23:59:59' }, orders)).toBeUndefined();
    expect(beforeGoLive(orderKind, { orderDate: '2027-01-01T00:00:00' }, orders)).toBeUndefined();
  });

  it('syncs an order without orderDate', () => {
    expect(beforeGoLive(orderKind, { orderId: 'X' }, orders)).toBeUndefined();
  });

  it('compares a count by its countDate', () => {
    expect(beforeGoLive(stockCountKind, { countDate: '2026-01-31' }, counts)).toBe(
      'before go-live: countDate 2026-01-31 is before SYNC_COUNTS_SINCE 2026-02-01',
    );
    expect(beforeGoLive(stockCountKind, { countDate: '2026-02-01' }, counts)).toBeUndefined();
  });

  it('leaves alone a stream without a floor, and BOMs, which have no date', () => {
    expect(beforeGoLive(orderKind, { orderDate: '2020-01-01T00:00:00' }, undefined)).toBeUndefined();
    expect(beforeGoLive(bomKind, { productId: 'X', orderDate: '2020-01-01T00:00:00' }, orders)).toBeUndefined();
  });
});
