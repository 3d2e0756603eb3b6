import type { EntityRef, FindRule } from '../../src/ops/find-rule.js';
import { parseProgress } from './order-progress.js';
import { orderKeys } from './order-keys.js';

const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

/** What `find` shows of an order: the order and its shipment, from the jobs' results and the progress in Redis. */
export const orderFind: FindRule = {
  entityKinds: ['order', 'shipment'],
  entities(d) {
    const out: EntityRef[] = [];
    const order = str(d.orderUrl);
    const shipment = str(d.shipmentUrl);
    if (order) out.push({ kind: 'order', url: order });
    if (shipment) out.push({ kind: 'shipment', url: shipment });
    return out;
  },
  async progress(redis, keys, key) {
    const hash = await redis.hgetall(orderKeys(keys).progress(key));
    if (!Object.keys(hash).length) return undefined;
    const p = parseProgress(hash);
    const value = { step: p.step, pending: p.pending ?? null, orderUrl: p.orderUrl ?? null, shipmentUrl: p.shipmentUrl ?? null };
    const entities: EntityRef[] = [];
    if (value.orderUrl) entities.push({ kind: 'order', url: value.orderUrl });
    if (value.shipmentUrl) entities.push({ kind: 'shipment', url: value.shipmentUrl });
    return { name: 'order', value, line: `Order progress: ${p.step}${p.pending ? ` (about to: ${p.pending})` : ''}`, entities };
  },
};
