import type {
  CreatedOrder,
  CreatedShipment,
  CreateOrderBody,
  CreateShipmentBody,
  CreateVarianceBody,
  FacilityRow,
  InventoryItemRow,
  InventoryVariance,
  Order,
  Product,
  ProductRow,
  ReadOrder,
  ReadShipment,
  Shipment,
  UpdateProductBody,
} from './schemas.js';

/** Request classes, each with its own budget. A collection GET also spends one GET. */
export type RequestClass = 'get' | 'post' | 'collection';

/** One API call as seen by the client: what job traces, logs and metrics record. */
export interface ApiCall {
  method: 'GET' | 'POST';
  /** Path as sent, e.g. /acme/api/order/WEB-1 (never the credentials). */
  path: string;
  cls: RequestClass;
  /** HTTP status, or null when no answer came (network failure, time-out). */
  status: number | null;
  /** Time on the wire, in ms. */
  ms: number;
  /** Time spent waiting for budget before sending, in ms. */
  waitedMs: number;
  /** Error code when the call failed (ServiceErrorCode). */
  error?: string;
  /** Epoch ms when the call started. */
  at: number;
}

export interface CallOptions {
  /** Called once per HTTP request made (retried reads call it per try). */
  onCall?: (call: ApiCall) => void;
  /** Called with the head of every answer that arrived, whatever its status (check reads X-RateLimit-* from it). */
  onHeaders?: (headers: Readonly<Record<string, string | string[] | undefined>>) => void;
  signal?: AbortSignal;
  /** Retries of a failed read for this call (default: the client's `readRetries`); 0 sends it once (the outage probe). */
  retries?: number;
}

/**
 * The typed calls of the service that the jobs use. URLs are paths as the service returns them
 * (e.g. /acme/api/shipment/X); the client prefixes the base URL. Every method throws ServiceError.
 */
export interface ServiceApi {
  readonly account: string;
  /**
   * `/{account}/api/order/{orderId}`: an order's URL uses the orderId the client chose; a variance's, the
   * physicalInventoryId the service assigned (for a collection row that carries no URL). Never for shipments (the
   * service may assign its own shipmentId; find them through the order's shipmentUrlList) nor products.
   */
  entityPath(collection: 'order' | 'inventoryvariance', id: string): string;
  listFacilities(o?: CallOptions): Promise<FacilityRow[]>;
  listProducts(o?: CallOptions): Promise<ProductRow[]>;
  listInventoryItems(o?: CallOptions): Promise<InventoryItemRow[]>;
  /** Any collection, decoded from column-major into rows. */
  listCollection(name: string, o?: CallOptions): Promise<Record<string, unknown>[]>;
  getOrder(path: string, o?: CallOptions): Promise<ReadOrder>;
  getShipment(path: string, o?: CallOptions): Promise<ReadShipment>;
  getProduct(path: string, o?: CallOptions): Promise<Product>;
  getVariance(path: string, o?: CallOptions): Promise<InventoryVariance>;
  createOrder(body: CreateOrderBody, o?: CallOptions): Promise<CreatedOrder>;
  createShipment(body: CreateShipmentBody, o?: CallOptions): Promise<CreatedShipment>;
  modifyShipment(path: string, body: Record<string, unknown>, o?: CallOptions): Promise<Shipment>;
  /** POST {} to an order's actionUrlComplete. */
  completeOrder(actionUrlComplete: string, o?: CallOptions): Promise<Order>;
  createVariance(body: CreateVarianceBody, o?: CallOptions): Promise<InventoryVariance>;
  updateProduct(path: string, body: UpdateProductBody, o?: CallOptions): Promise<Product>;
}
