import type { ApiContext } from './api-context.js';
import { historyView, orderItemView, orderView, productView, shipmentView, varianceView } from './answer-views.js';
import { collectionJson, historyJson, isCollection } from './collections.js';
import { ORDER_ACTIONS, orderAction, reserveItem } from './order-actions.js';
import { createOrder, modifyOrder, requireOrder } from './orders.js';
import { requireProductById, updateProduct } from './products.js';
import { SHIPMENT_ACTIONS, requireShipment, shipmentAction } from './shipment-states.js';
import { createShipment, modifyShipment } from './shipments.js';
import { createVariance, modifyVariance, varianceAction } from './variances.js';
import { ApiError, badRequest, notFound } from './validation.js';

/** The request as the router needs it: path segments after /{account}/api/, decoded. */
export interface ApiRequest {
  method: string;
  segments: string[];
  query: string;
  /** Parses the body as JSON (400 when malformed); action URLs never call it. */
  body(): unknown;
}

/** Answers an API request with the JSON text of a 200, or throws ApiError. */
export function routeApi(ctx: ApiContext, req: ApiRequest): string {
  if (req.method === 'GET') return routeGet(ctx, req);
  if (req.method === 'POST') return JSON.stringify(routePost(ctx, req));
  throw new ApiError(405, `${req.method} is not supported; the API reads with GET and writes with POST`);
}

function routeGet(ctx: ApiContext, req: ApiRequest): string {
  const { store } = ctx;
  const [c = '', id, sub, subId] = req.segments;
  const n = req.segments.length;
  if (n === 1) {
    if (!isCollection(c)) throw notFound(`No collection ${c}`);
    return collectionJson(store, ctx.profile, c, limitOf(req.query));
  }
  if (id === undefined) throw notFound('No such resource');
  if (n === 2) return JSON.stringify(entity(ctx, c, id));
  if (c === 'order' && n === 3 && sub === 'history') {
    requireOrder(ctx, id);
    return historyJson(historyView(ctx.profile, store.orderHistory.get(id) ?? []));
  }
  if (c === 'order' && n === 4 && sub === 'orderItem' && subId !== undefined) {
    const order = requireOrder(ctx, id);
    const item = order.orderItemList.find((i) => i.orderItemUrl.endsWith(`/orderItem/${encodeURIComponent(subId)}`));
    if (!item) throw notFound(`No order item ${subId} in order ${id}`);
    return JSON.stringify(orderItemView(ctx.profile, order, item));
  }
  if (n === 3 && actionsOf(ctx, c)?.has(sub ?? '')) throw new ApiError(405, `${sub} is an action URL: POST {} to it`);
  throw notFound(`No resource at ${req.segments.join('/')}`);
}

function entity(ctx: ApiContext, c: string, id: string): unknown {
  const { store } = ctx;
  let found: unknown;
  switch (c) {
    case 'facility':
      found = store.facilities.get(id);
      break;
    case 'product':
      return productView(ctx.profile, requireProductById(ctx, id));
    case 'order':
      return orderView(ctx.profile, requireOrder(ctx, id));
    case 'shipment':
      return shipmentView(ctx.profile, requireShipment(ctx, id));
    case 'inventoryvariance': {
      const v = store.variances.get(id);
      found = v && varianceView(ctx.profile, v);
      break;
    }
    case 'inventoryitem':
      found = store.inventory.get(id);
      break;
    case 'productassoc':
      found = store.assocs.get(store.url('productassoc', id))?.assoc;
      break;
    case 'userlogin':
      if (store.url('userlogin', id) === ctx.userLoginUrl) found = { userLoginId: id, userLoginUrl: ctx.userLoginUrl };
      break;
    default:
      throw notFound(`No collection ${c}`);
  }
  if (found === undefined) throw notFound(`No ${c} ${id}`);
  return found;
}

function routePost(ctx: ApiContext, req: ApiRequest): unknown {
  const [c = '', id, sub, subId, subAction] = req.segments;
  const n = req.segments.length;
  if (n === 1) {
    if (c === 'order') return createOrder(ctx, req.body());
    if (c === 'shipment') return createShipment(ctx, req.body());
    if (c === 'inventoryvariance') return createVariance(ctx, req.body());
    if (isCollection(c)) throw new ApiError(405, `POST to the ${c} collection is not supported`);
    throw notFound(`No collection ${c}`);
  }
  if (id === undefined) throw notFound('No such resource');
  if (n === 2) {
    if (c === 'order') return modifyOrder(ctx, id, req.body());
    if (c === 'shipment') return modifyShipment(ctx, id, req.body());
    if (c === 'inventoryvariance') return modifyVariance(ctx, id, req.body());
    if (c === 'product') return updateProduct(ctx, id, req.body());
    entity(ctx, c, id);
    throw new ApiError(405, `${c} entities cannot be modified through the API`);
  }
  if (n === 3 && sub !== undefined) {
    if (c === 'order' && ORDER_ACTIONS.has(sub)) return orderAction(ctx, id, sub);
    if (c === 'shipment' && SHIPMENT_ACTIONS.has(sub)) return shipmentAction(ctx, id, sub);
    if (c === 'inventoryvariance' && sub === 'cancel') return varianceAction(ctx, id, sub);
  }
  if (c === 'order' && n === 5 && sub === 'orderItem' && subId !== undefined && subAction === 'reserve') return reserveItem(ctx, id, subId);
  throw notFound(`No resource at ${req.segments.join('/')}`);
}

function actionsOf(ctx: ApiContext, c: string): ReadonlySet<string> | undefined {
  if (c === 'order') return ORDER_ACTIONS;
  if (c === 'shipment') return SHIPMENT_ACTIONS;
  if (c === 'inventoryvariance') return new Set(['cancel']);
  return undefined;
}

/** `limit` of the query, honoured on every collection; `offset` is ignored, as the real one is unreliable. */
function limitOf(query: string): number | undefined {
  if (!query) return undefined;
  const raw = new URLSearchParams(query).get('limit');
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) throw badRequest(`limit: ${raw} is not a non-negative integer`);
  return Number(raw);
}
