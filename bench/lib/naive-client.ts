/**
 * A naive sequential client, written for the bench (issue 22): one request at a time with fetch, no budget, no queue,
 * no retry, no Redis. It reads the facilities and products once, then syncs each order as four POSTs (create the
 * order, create its shipment, ship it, complete the order). What a first integration script looks like.
 */
import { decodeColumns } from '../../src/client/answers/columns.js';
import type { BenchOrder } from './order-records.js';

type Json = Record<string, unknown>;

export async function naiveSync(o: { url: string; account: string; key: string; secret: string; orders: BenchOrder[] }): Promise<void> {
  const headers = {
    authorization: `Basic ${Buffer.from(`${o.key}:${o.secret}`).toString('base64')}`,
    accept: 'application/json',
    'content-type': 'application/json',
  };
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(new URL(path, o.url), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 200)}`);
    return JSON.parse(text) as unknown;
  };
  const facilities = decodeColumns(await call('GET', `/${o.account}/api/facility`));
  const products = decodeColumns(await call('GET', `/${o.account}/api/product`));
  const byUrl = new Map(facilities.map((f) => [f.facilityUrl, f]));
  const facility = new Map<string, string>();
  for (const f of facilities) {
    const parent = f.parentFacilityUrl ? byUrl.get(f.parentFacilityUrl) : undefined;
    facility.set(parent ? `${String(parent.facilityName)} / ${String(f.facilityName)}` : String(f.facilityName), String(f.facilityUrl));
  }
  const product = new Map(products.map((p) => [String(p.productId), String(p.productUrl)]));
  for (const r of o.orders) {
    const items = r.lines.map((l) => ({ productId: l.productId, productUrl: product.get(l.productId), quantity: l.quantity }));
    const order = (await call('POST', `/${o.account}/api/order`, {
      orderId: r.orderId,
      orderTypeId: 'SALES_ORDER',
      originFacilityUrl: facility.get(r.origin),
      orderItemList: r.lines.map((l, i) => ({ ...items[i], unitPrice: l.unitPrice })),
    })) as Json;
    const shipment = (await call('POST', `/${o.account}/api/shipment`, {
      shipmentIdUser: `${r.orderId}-1`,
      shipmentTypeId: 'SALES_SHIPMENT',
      primaryOrderUrl: order.orderUrl,
      statusId: 'SHIPMENT_INPUT',
      shipmentItemList: r.lines.map((l, i) => ({ ...items[i], facilityUrl: facility.get(l.location) })),
    })) as Json;
    await call('POST', String(shipment.shipmentUrl), { statusId: 'SHIPMENT_SHIPPED' });
    await call('POST', String(order.actionUrlComplete), {});
  }
}
