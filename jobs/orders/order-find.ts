import type { EntityRef, FindRule } from '../../src/ops/find-rule.js';
import { parseProgress } from './order-progress.js';
import { orderKeys } from './order-keys.js';
import { lifeFound } from './life-find.js';
import { lifeLogKey } from './life-log.js';

const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

/**
 * What `find` shows of an order: the order and its shipments, from the jobs' results and the progress in Redis; for
 * an order that lives, its snapshots in order and what each did (life-find.ts).
 */
export const orderFind: FindRule = {
  entityKinds: ['order', 'shipment', 'variance'],
  entities(d) {
    const out: EntityRef[] = [];
    const order = str(d.orderUrl);
    const shipment = str(d.shipmentUrl);
    if (order) out.push({ kind: 'order', url: order });
    if (shipment) out.push({ kind: 'shipment', url: shipment });
    // An order that lives names each fulfillment's shipment.
    const many = Array.isArray(d.shipmentUrls) ? d.shipmentUrls : [];
    for (const url of many) if (str(url)) out.push({ kind: 'shipment', url: url as string });
    return out;
  },
  async progress(redis, keys, key) {
    const hash = await redis.hgetall(orderKeys(keys).progress(key));
    if (hash.life === '1' || (await redis.exists(lifeLogKey(keys, key)))) return lifeFound(redis, keys, key, hash);
    if (!Object.keys(hash).length) return undefined;
    const p = parseProgress(hash);
    const value = { step: p.step, pending: p.pending ?? null, orderUrl: p.orderUrl ?? null, shipmentUrl: p.shipmentUrl ?? null };
    const entities: EntityRef[] = [];
    if (value.orderUrl) entities.push({ kind: 'order', url: value.orderUrl });
    if (value.shipmentUrl) entities.push({ kind: 'shipment', url: value.shipmentUrl });
    return { name: 'order', value, line: `Order progress: ${p.step}${p.pending ? ` (about to: ${p.pending})` : ''}`, entities };
  },
};
