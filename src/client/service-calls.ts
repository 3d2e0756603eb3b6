import type {
  CreateOrderBody,
  CreateShipmentBody,
  ModifyOrderItemsBody,
  CreateVarianceBody,
  UpdateProductBody,
} from './answers/schemas.js';
import type { CallOptions, RequestClass } from './api-call.js';
import { decoders as d, type Decoder } from './answers/shape.js';
import type { CallScope } from './call-scope.js';

/**
 * One call of the service. `path` is a template: `{account}` is the client's account; `{url}` takes a path or URL
 * as the service answers it (an entity or action URL); `{collection}` takes a collection name (letters only); any
 * other `{name}` takes an id, percent-encoded. A row with `body` writes (POST): the builder turns the typed body
 * into the JSON sent. `decode` reads the answer, requiring only what the calling step needs (schemas.ts).
 */
export interface CallRow<P extends string = string, B extends unknown[] = unknown[], A = unknown> {
  method: 'GET' | 'POST';
  path: P;
  /** Which budget the request spends (a collection GET also spends one GET). */
  cls: RequestClass;
  /**
   * The named call a run of failures holds (src/queue/hold/call-hold.ts): the rows that reach one endpoint for one
   * purpose share one, so a 503 of shipment creates holds the jobs about to create a shipment and nothing else.
   */
  scope: CallScope;
  /** Only on a write: the JSON sent, from the call's body argument (none for an action such as complete). */
  body?: (...body: B) => string;
  decode: Decoder<A>;
}

/** A table of calls, by name: what the typed API (`ServiceApi`) is derived from. */
export type CallTable = Record<string, CallRow<string, never[], unknown>>;

/** The JSON of a typed request body, as it is (the types hold writes to docs/service.md "Calls the program makes"). */
const json =
  <B>() =>
  (body: B): string =>
    JSON.stringify(body);
/** An action's body: the service takes `{}`. */
const empty = (): string => '{}';

/**
 * Every call of the service the program makes. Adding an endpoint is a row here (and its route in the sandbox,
 * src/sandbox/api-router.ts); the API, tracing, the dry run's refusal and the budgets follow.
 */
export const serviceCalls = {
  listFacilities: { method: 'GET', path: '/{account}/api/facility', cls: 'collection', scope: 'collection-reads', decode: d.facilityRows },
  listProducts: { method: 'GET', path: '/{account}/api/product', cls: 'collection', scope: 'collection-reads', decode: d.productRows },
  listInventoryItems: {
    method: 'GET',
    path: '/{account}/api/inventoryitem',
    cls: 'collection',
    scope: 'collection-reads',
    decode: d.inventoryRows,
  },
  /** Any collection, decoded from column-major into rows. */
  listCollection: { method: 'GET', path: '/{account}/api/{collection}', cls: 'collection', scope: 'collection-reads', decode: d.anyRows },
  getOrder: { method: 'GET', path: '{url}', cls: 'get', scope: 'entity-reads', decode: d.orderRead },
  getShipment: { method: 'GET', path: '{url}', cls: 'get', scope: 'entity-reads', decode: d.shipmentRead },
  getProduct: { method: 'GET', path: '{url}', cls: 'get', scope: 'entity-reads', decode: d.product },
  getVariance: { method: 'GET', path: '{url}', cls: 'get', scope: 'entity-reads', decode: d.variance },
  createOrder: {
    method: 'POST',
    path: '/{account}/api/order',
    cls: 'post',
    scope: 'order-create',
    body: json<CreateOrderBody>(),
    decode: d.orderCreated,
  },
  createShipment: {
    method: 'POST',
    path: '/{account}/api/shipment',
    cls: 'post',
    scope: 'shipment-create',
    body: json<CreateShipmentBody>(),
    decode: d.shipmentCreated,
  },
  modifyShipment: {
    method: 'POST',
    path: '{url}',
    cls: 'post',
    scope: 'shipment-update',
    body: json<Record<string, unknown>>(),
    decode: d.shipment,
  },
  /** POST {} to an order's actionUrlComplete. */
  completeOrder: { method: 'POST', path: '{url}', cls: 'post', scope: 'order-actions', body: empty, decode: d.order },
  /** POST {} to another action URL of an order: actionUrlLock, actionUrlEdit, actionUrlCancel. */
  orderAction: { method: 'POST', path: '{url}', cls: 'post', scope: 'order-actions', body: empty, decode: d.order },
  /** POST to an order's URL: its items replaced by the list sent (the order must be editable, ORDER_CREATED). */
  modifyOrder: { method: 'POST', path: '{url}', cls: 'post', scope: 'order-actions', body: json<ModifyOrderItemsBody>(), decode: d.order },
  createVariance: {
    method: 'POST',
    path: '/{account}/api/inventoryvariance',
    cls: 'post',
    scope: 'variance',
    body: json<CreateVarianceBody>(),
    decode: d.variance,
  },
  updateProduct: {
    method: 'POST',
    path: '{url}',
    cls: 'post',
    scope: 'product-update',
    body: json<UpdateProductBody>(),
    decode: d.product,
  },
} as const satisfies CallTable;

export type ServiceCalls = typeof serviceCalls;

/** The arguments a path template takes, in order: one string per `{name}` but `{account}`. */
type PathArgs<P extends string> = P extends `${string}{${infer K}}${infer Rest}`
  ? K extends 'account'
    ? PathArgs<Rest>
    : [string, ...PathArgs<Rest>]
  : [];
type BodyArgs<R> = R extends { body: (...body: infer B) => string } ? B : [];
type Answer<R> = R extends { decode: Decoder<infer A> } ? A : never;

/** A row as a method: its path's arguments, its body if it writes, then the call's options. */
export type CallMethod<R> = R extends { path: infer P extends string }
  ? (...args: [...PathArgs<P>, ...BodyArgs<R>, o?: CallOptions]) => Promise<Answer<R>>
  : never;

/** The typed methods of a table. */
export type CallMethods<T extends CallTable> = { -readonly [K in keyof T]: CallMethod<T[K]> };
