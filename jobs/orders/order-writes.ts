import type { Order } from '../../src/client/answers/schemas.js';
import type { ServiceApi } from '../../src/client/service-api.js';
import { PermanentJobError } from '../../src/queue/job-errors.js';
import type { NextWrite, WriteStep } from './life-next.js';
import type { OrderPlan } from './order-plan.js';
import type { OrderProgress, ProgressWrite } from './order-progress.js';
import { actionsOf, SHIPMENT_SHIPPED, statusOf } from './order-read.js';

/** Where a URL the service assigns goes in a dry run, before it exists. */
const SHIPMENT_URL = '{shipmentUrl}';
const VARIANCE_URL = '{varianceUrl}';

/** One write of an order: what it asks (for people and refusals), what it did (for the summary), its request, its effect. */
export interface OrderWrite {
  /** "create the order", "ship F1": what a refusal names. */
  ask: string;
  /** What the dry run lists: the ask, a plain order's create and shipment in the record's words. */
  said: string;
  /** "created the order", "shipped F1": the job's summary. */
  done: string;
  path: string;
  body: unknown;
  /** Sends it; answers what it makes known. */
  send(client: ServiceApi): Promise<ProgressWrite>;
  /** What it makes known when applied as planned (the dry run: URLs the service assigns as placeholders). */
  planned: ProgressWrite;
}

/** [asked, done] of each kind of write; a part's and a return's name follow. */
const WORDS: Record<WriteStep['kind'], [string, string]> = {
  'create-order': ['create the order', 'created the order'],
  lock: ['commit the order (its units reserved)', 'committed the order'],
  edit: ['make the committed order editable', 'made the order editable'],
  items: ["change the order's lines", "changed the order's lines"],
  shipment: ['create shipment', 'created shipment'],
  ship: ['ship', 'shipped'],
  return: ['restock return', 'restocked return'],
  complete: ['complete the order', 'completed the order'],
  cancel: ['cancel the order (and its unshipped shipments)', 'cancelled the order'],
};

/** A plain order's one shipment is "the shipment", as it always was. */
const PLAIN: Partial<Record<WriteStep['kind'], [string, string]>> = {
  shipment: ['create the shipment', 'created the shipment'],
  ship: ['ship the shipment', 'shipped the shipment'],
};

function wordsOf(plan: OrderPlan, step: WriteStep): [string, string] {
  const words = (plan.plain && PLAIN[step.kind]) || WORDS[step.kind];
  if (plan.plain && 'part' in step) return words;
  const name = 'part' in step ? ` ${step.part.id}` : 'ret' in step ? ` ${step.ret.id}` : '';
  const of = 'ret' in step && step.ret.variances.length > 1 ? ` (${step.index + 1}/${step.ret.variances.length})` : '';
  return [`${words[0]}${name}`, `${words[1]}${name}${of}`];
}

const orderEffect = (order: Order): ProgressWrite => ({
  status: statusOf(order),
  actions: actionsOf(order),
  ...(order.orderUrl ? { orderUrl: order.orderUrl } : {}),
});

/**
 * The request of one write and what it makes known (docs/orders.md "What a snapshot becomes"): the one table the run
 * sends from and the dry run lists. Action URLs as the last answer gave them, else `{orderUrl}/{action}`.
 */
export function orderWrite(
  plan: OrderPlan,
  p: OrderProgress,
  next: NextWrite,
  api: Pick<ServiceApi, 'account' | 'entityPath'>,
): OrderWrite {
  const { step } = next;
  const [ask, done] = wordsOf(plan, step);
  const orderUrl = p.orderUrl ?? api.entityPath('order', plan.orderId);
  const collection = (name: string) => `/${api.account}/api/${name}`;
  const action = (name: 'lock' | 'edit' | 'cancel' | 'complete') => p.actions[name] ?? `${orderUrl}/${name}`;
  const base = { ask, done, said: ask };
  switch (step.kind) {
    case 'create-order': {
      const made = { items: plan.itemsHash! };
      return {
        ...base,
        said: plan.said?.order ?? ask,
        path: collection('order'),
        body: plan.order,
        send: async (c) => ({ ...orderEffect(await c.createOrder(plan.order!)), ...made }),
        planned: { status: 'created', orderUrl, actions: {}, ...made },
      };
    }
    case 'lock':
    case 'edit':
    case 'complete': {
      const path = action(step.kind);
      const status = step.kind === 'lock' ? 'locked' : step.kind === 'edit' ? 'created' : 'completed';
      const send = step.kind === 'complete' ? (c: ServiceApi) => c.completeOrder(path) : (c: ServiceApi) => c.orderAction(path);
      return { ...base, path, body: {}, send: async (c) => orderEffect(await send(c)), planned: { status } };
    }
    case 'items': {
      const body = { orderItemList: plan.order!.orderItemList };
      const made = { items: plan.itemsHash! };
      return { ...base, path: orderUrl, body, send: async (c) => (await c.modifyOrder(orderUrl, body), made), planned: made };
    }
    case 'cancel': {
      const path = action('cancel');
      // The service cancels the order's unshipped shipments with it.
      const gone = new Map([...p.parts].filter(([, x]) => !x.shipped).map(([k]) => [k, null] as [string, null]));
      return {
        ...base,
        path,
        body: {},
        send: async (c) => ({ ...orderEffect(await c.orderAction(path)), parts: gone }),
        planned: { status: 'cancelled', parts: gone },
      };
    }
    case 'shipment': {
      const body = { ...step.part.shipment, primaryOrderUrl: orderUrl };
      const { units, unitsHash } = step.part;
      const part = (url: string, shipped: boolean) => ({ parts: new Map([[step.part.id, { shipped, url, units, unitsHash }]]) });
      return {
        ...base,
        said: plan.said?.shipment ?? ask,
        path: collection('shipment'),
        body,
        send: async (c) => {
          const s = await c.createShipment(body);
          return part(s.shipmentUrl, s.statusId === SHIPMENT_SHIPPED);
        },
        planned: part(SHIPMENT_URL, false),
      };
    }
    case 'ship':
      return shipWrite(plan, p, step, base);
    case 'return':
      return returnWrite(p, step, base, collection('inventoryvariance'));
  }
}

/** The words every write of an order carries (wordsOf). */
type WriteWords = Pick<OrderWrite, 'ask' | 'done' | 'said'>;

/** Marking a created shipment shipped: refused when the service answers another status. */
function shipWrite(
  plan: OrderPlan,
  p: OrderProgress,
  step: Extract<WriteStep, { kind: 'shipment' | 'ship' }>,
  base: WriteWords,
): OrderWrite {
  const known = p.parts.get(step.part.id)!;
  const body = { statusId: SHIPMENT_SHIPPED };
  const shipped = { parts: new Map([[step.part.id, { ...known, shipped: true }]]) };
  const send = async (c: ServiceApi) => {
    const s = await c.modifyShipment(known.url, body);
    if (s.statusId !== undefined && s.statusId !== SHIPMENT_SHIPPED)
      throw new PermanentJobError(
        'SERVICE_REFUSED',
        `order ${plan.orderId}: shipping ${step.part.id} answered status ${s.statusId}, not ${SHIPMENT_SHIPPED}`,
        'Check the shipment in the service, then retry the job.',
        { orderId: plan.orderId, shipmentUrl: known.url },
        `shipping a part answered status ${s.statusId}, not ${SHIPMENT_SHIPPED}`,
      );
    return shipped;
  };
  return { ...base, path: known.url, body, send, planned: shipped };
}

/** One variance of a return (restocking its lines at its facility), posted to `path`. */
function returnWrite(p: OrderProgress, step: Extract<WriteStep, { kind: 'return' }>, base: WriteWords, path: string): OrderWrite {
  const v = step.ret.variances[step.index]!;
  const known = p.returns.get(step.ret.id) ?? { urls: [] };
  // Its day was recorded with its intent (a return without returnedAt: the day it is first sent).
  const day = known.day ?? step.ret.day ?? '{today}';
  const body = {
    physicalInventoryDate: `${day}T19:00:00.000`,
    statusId: 'PHSCL_INV_COMMITTED' as const,
    physicalInventoryTypeId: 'FACILITY' as const,
    facilityUrl: v.facilityUrl,
    inventoryItemVarianceList: v.lines.map(([productUrl, q]) => ({ facilityUrl: v.facilityUrl, productUrl, quantityOnHandVar: q })),
  };
  const made = (url: string) => ({ returns: new Map([[step.ret.id, { ...known, day, urls: [...known.urls, url] }]]) });
  return {
    ...base,
    path,
    body,
    send: async (c) => made((await c.createVariance(body)).physicalInventoryUrl ?? ''),
    planned: made(VARIANCE_URL),
  };
}
