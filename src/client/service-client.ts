import { Pool, type Dispatcher } from 'undici';
import pRetry from 'p-retry';
import { redact } from '../logger.js';
import { Credentials } from './credentials.js';
import { followablePath, toPath } from './api-path.js';
import { RequestBudget } from './budget.js';
import { BodyTooLargeError, readCappedText } from './capped-body.js';
import { badResponse, classifyAnswer, classifyNetworkError, type HttpMethod } from './classify.js';
import { isServiceError, TransientError, type ServiceError } from './errors.js';
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
import type { ApiCall, CallOptions, RequestClass, ServiceApi } from './service-api.js';
import { decoders as d, type Decoder } from './shape.js';
import { defaults } from '../../config/defaults.js';
import { messageOf } from '../message-of.js';

export interface ServiceClientOptions {
  /** The service, e.g. https://app.example.com (API paths are {baseUrl}/{account}/api/...). */
  baseUrl: string;
  account: string;
  /** Basic credentials that never change; or `credentials`. */
  apiKey?: string;
  apiSecret?: string;
  /** The credentials asked for each request (read again from their files on a 401); instead of apiKey and apiSecret. */
  credentials?: Credentials;
  /** Shared request budget. Default: none (RequestBudget.unlimited(); 429s still hold in this process). */
  budget?: RequestBudget;
  /** Time-out of an entity call (for the answer's head, then between body chunks), ms. Default 15 s. */
  entityTimeoutMs?: number;
  /** Time-out of a collection GET, ms. Default 120 s. */
  collectionTimeoutMs?: number;
  /** Retries of a failed read (retryable errors only). Default 3. Writes are never retried here. */
  readRetries?: number;
  /** First delay between read retries, ms; doubles each retry, jittered ×1–2. Default 250. */
  retryMinDelayMs?: number;
  /** HTTP dispatcher (undici Pool/Agent/MockAgent). Default: a keep-alive Pool on the base URL's origin, closed by close(). */
  dispatcher?: Dispatcher;
  /** Keep-alive connections of the default Pool. Default 32. */
  connections?: number;
  /** Called once per HTTP request (metrics). */
  onCall?: (call: ApiCall) => void;
  /** Largest answer body in bytes; a larger 2xx is BAD_RESPONSE. Default defaults.maxResponseBytes. */
  maxResponseBytes?: number;
}

/** A 429 on a read whose reset is further away than this goes to the caller instead of being waited out. */
const MAX_READ_HOLD_MS = 60_000;
const EMPTY_BODY = '{}';

/** The service over HTTP (undici, keep-alive), every answer validated, every failure a ServiceError. */
export class ServiceClient implements ServiceApi {
  readonly account: string;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly budget: RequestBudget;
  private readonly entityTimeoutMs: number;
  private readonly collectionTimeoutMs: number;
  private readonly readRetries: number;
  private readonly retryMinDelayMs: number;
  private readonly onCall?: (call: ApiCall) => void;
  private readonly credentials: Credentials;
  private readonly maxResponseBytes: number;

  constructor(opts: ServiceClientOptions) {
    const base = new URL(opts.baseUrl);
    this.origin = base.origin;
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.account = opts.account;
    this.ownsDispatcher = !opts.dispatcher;
    this.dispatcher =
      opts.dispatcher ??
      new Pool(this.origin, {
        connections: opts.connections ?? defaults.serviceConnections,
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 600_000,
      });
    this.budget = opts.budget ?? RequestBudget.unlimited();
    this.entityTimeoutMs = opts.entityTimeoutMs ?? defaults.entityTimeoutMs;
    this.collectionTimeoutMs = opts.collectionTimeoutMs ?? defaults.collectionTimeoutMs;
    this.readRetries = opts.readRetries ?? defaults.readRetries;
    this.retryMinDelayMs = opts.retryMinDelayMs ?? defaults.readRetryMinDelayMs;
    this.onCall = opts.onCall;
    this.maxResponseBytes = opts.maxResponseBytes ?? defaults.maxResponseBytes;
    if (!opts.credentials && (opts.apiKey === undefined || opts.apiSecret === undefined))
      throw new RangeError('ServiceClient needs apiKey and apiSecret, or credentials');
    this.credentials = opts.credentials ?? Credentials.fixed(opts.apiKey!, opts.apiSecret!);
  }

  /** Every form of the credentials held so far: what answers and errors are cleaned of. */
  private get secrets(): string[] {
    return this.credentials.secretForms();
  }

  entityPath(collection: 'order' | 'inventoryvariance', id: string): string {
    return `/${this.account}/api/${collection}/${encodeURIComponent(id)}`;
  }

  listFacilities(o?: CallOptions): Promise<FacilityRow[]> {
    return this.read(this.collectionPath('facility'), 'collection', d.facilityRows, o);
  }
  listProducts(o?: CallOptions): Promise<ProductRow[]> {
    return this.read(this.collectionPath('product'), 'collection', d.productRows, o);
  }
  listInventoryItems(o?: CallOptions): Promise<InventoryItemRow[]> {
    return this.read(this.collectionPath('inventoryitem'), 'collection', d.inventoryRows, o);
  }
  listCollection(name: string, o?: CallOptions): Promise<Record<string, unknown>[]> {
    return this.read(this.collectionPath(name), 'collection', d.anyRows, o);
  }

  getOrder(path: string, o?: CallOptions): Promise<ReadOrder> {
    return this.read(toPath(path), 'get', d.orderRead, o);
  }
  getShipment(path: string, o?: CallOptions): Promise<ReadShipment> {
    return this.read(toPath(path), 'get', d.shipmentRead, o);
  }
  getProduct(path: string, o?: CallOptions): Promise<Product> {
    return this.read(toPath(path), 'get', d.product, o);
  }
  getVariance(path: string, o?: CallOptions): Promise<InventoryVariance> {
    return this.read(toPath(path), 'get', d.variance, o);
  }

  createOrder(body: CreateOrderBody, o?: CallOptions): Promise<CreatedOrder> {
    return this.write(`/${this.account}/api/order`, JSON.stringify(body), d.orderCreated, o);
  }
  createShipment(body: CreateShipmentBody, o?: CallOptions): Promise<CreatedShipment> {
    return this.write(`/${this.account}/api/shipment`, JSON.stringify(body), d.shipmentCreated, o);
  }
  modifyShipment(path: string, body: Record<string, unknown>, o?: CallOptions): Promise<Shipment> {
    return this.write(toPath(path), JSON.stringify(body), d.shipment, o);
  }
  completeOrder(actionUrlComplete: string, o?: CallOptions): Promise<Order> {
    return this.write(toPath(actionUrlComplete), EMPTY_BODY, d.order, o);
  }
  createVariance(body: CreateVarianceBody, o?: CallOptions): Promise<InventoryVariance> {
    return this.write(`/${this.account}/api/inventoryvariance`, JSON.stringify(body), d.variance, o);
  }
  updateProduct(path: string, body: UpdateProductBody, o?: CallOptions): Promise<Product> {
    return this.write(toPath(path), JSON.stringify(body), d.product, o);
  }

  /** Closes the connections this client opened (not an injected dispatcher). */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  private collectionPath(name: string): string {
    if (!/^[A-Za-z]+$/.test(name)) throw new RangeError(`collection name must be letters only, got "${name}"`);
    return `/${this.account}/api/${name}`;
  }

  /** A GET, retried here on retryable errors (bounded, jittered); a 429 waits for its reset first. */
  private async read<T>(path: string, cls: RequestClass, decode: Decoder<T>, o?: CallOptions): Promise<T> {
    let first: unknown;
    try {
      // The first try runs bare: p-retry's bookkeeping is only paid once something failed.
      return await this.once('GET', path, cls, undefined, decode, o);
    } catch (err) {
      if (!this.shouldRetryRead(err) || (o?.retries ?? this.readRetries) === 0) throw err;
      first = err;
    }
    try {
      return await pRetry((attempt) => (attempt === 1 ? Promise.reject(first) : this.once('GET', path, cls, undefined, decode, o)), {
        retries: o?.retries ?? this.readRetries,
        minTimeout: this.retryMinDelayMs,
        maxTimeout: 10_000,
        randomize: true,
        signal: o?.signal,
        shouldRetry: ({ error }) => this.shouldRetryRead(error),
      });
    } catch (err) {
      // Aborted between tries: still one error family for the caller.
      throw isServiceError(err) ? err : classifyNetworkError({ method: 'GET', path, error: err, sent: false });
    }
  }

  private shouldRetryRead(err: unknown): boolean {
    return isServiceError(err) && err.retryable && (err.code !== 'RATE_LIMITED' || (err.resetAt ?? 0) - Date.now() <= MAX_READ_HOLD_MS);
  }

  /** A POST, tried once: whether a failed write may be tried again is the caller's decision (see `outcome`). */
  private write<T>(path: string, payload: string, decode: Decoder<T>, o?: CallOptions): Promise<T> {
    return this.once('POST', path, 'post', payload, decode, o);
  }

  /**
   * One request; a 401 reads the credentials' files again and, when they changed since the request was sent, sends
   * it once more at once with the new ones (a 401 is answered before anything is done, so a write is safe to repeat).
   */
  private async once<T>(
    method: HttpMethod,
    urlOrPath: string,
    cls: RequestClass,
    payload: string | undefined,
    decode: Decoder<T>,
    o?: CallOptions,
  ): Promise<T> {
    const sent = { version: this.credentials.version };
    try {
      return await this.send(method, urlOrPath, cls, payload, decode, sent, o);
    } catch (err) {
      if (!isServiceError(err) || err.code !== 'UNAUTHORIZED' || !(await this.rotatedSince(sent.version))) throw err;
      return this.send(method, urlOrPath, cls, payload, decode, sent, o);
    }
  }

  /** Whether the credentials changed since `version` was refused (read again now); if not, that version is refused. */
  private async rotatedSince(version: number): Promise<boolean> {
    if (!this.credentials.rotatable) return false;
    await this.credentials.reload();
    if (this.credentials.version !== version) return true;
    this.credentials.markRefused(version);
    return false;
  }

  /** One HTTP request: budget, send, classify, report. `sent.version`: the credentials' version it was sent with. */
  private async send<T>(
    method: HttpMethod,
    urlOrPath: string,
    cls: RequestClass,
    payload: string | undefined,
    decode: Decoder<T>,
    sent: { version: number },
    o?: CallOptions,
  ): Promise<T> {
    // Paths come from answers and Redis too: only ones under /<account>/api/ without dot-segments are followed.
    const path = followablePath(method, urlOrPath, this.account);
    let waitedMs: number;
    try {
      waitedMs = await this.budget.acquire(cls, o?.signal);
    } catch (err) {
      if (o?.signal?.aborted) throw classifyNetworkError({ method, path, error: err, sent: false });
      const why = messageOf(err);
      throw new TransientError(`${method} ${path} was not sent: the request budget could not be read from Redis (${why})`, {
        method,
        path,
        cause: err,
      });
    }
    const at = Date.now();
    const t0 = performance.now();
    sent.version = this.credentials.version;
    const authorization = this.credentials.authorization();
    const headers: Record<string, string> =
      payload === undefined
        ? { authorization, accept: 'application/json' }
        : { authorization, accept: 'application/json', 'content-type': 'application/json' };
    const timeout = cls === 'collection' ? this.collectionTimeoutMs : this.entityTimeoutMs;
    let status: number | null = null;
    let value: T | undefined;
    let failure: ServiceError | undefined;
    try {
      const res = await this.dispatcher.request({
        origin: this.origin,
        path: this.basePath + path,
        method,
        headers,
        body: payload,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        signal: o?.signal,
      });
      status = res.statusCode;
      // What the answer says of the account's budget, for every process (not awaited: the call's result does not wait on it).
      void this.budget.observe(cls, status, res.headers);
      if (o?.onHeaders) this.reportHeaders(res.headers, o.onHeaders);
      let text: string;
      try {
        text = await readCappedText(res.body, this.maxResponseBytes);
      } catch (err) {
        // The head came, the body did not: a 2xx write was applied; other answers are read from the head alone.
        if (status >= 200 && status < 300) throw err instanceof BodyTooLargeError ? badResponse(method, path, status, err.message) : err;
        text = '';
      }
      if (status >= 200 && status < 300) value = this.decodeBody(method, path, status, text, decode);
      else failure = classifyAnswer({ method, path, status, headers: res.headers, body: text, secrets: this.secrets });
    } catch (err) {
      failure = isServiceError(err)
        ? err
        : classifyNetworkError({ method, path, error: err, status: status ?? undefined, secrets: this.secrets });
    }
    if (this.onCall || o?.onCall) {
      const call: ApiCall = { method, path, cls, status, ms: Math.round(performance.now() - t0), waitedMs, at };
      if (failure) call.error = failure.code;
      this.report(call, o);
    }
    if (failure) {
      // The hold is best effort: the 429 itself must reach the caller even when Redis does not answer.
      if (failure.code === 'RATE_LIMITED' && failure.resetAt) await this.budget.hold(cls, failure.resetAt).catch(() => undefined);
      throw failure;
    }
    return value as T;
  }

  /** A reporter that throws must not turn an applied write into a failure. */
  private report(call: ApiCall, o?: CallOptions): void {
    try {
      this.onCall?.(call);
      o?.onCall?.(call);
    } catch {
      // Reporting is for traces and metrics; the call's result stands.
    }
  }

  /** A reader of headers that throws must not fail the call. */
  private reportHeaders(headers: Dispatcher.ResponseData['headers'], onHeaders: NonNullable<CallOptions['onHeaders']>): void {
    try {
      onHeaders(headers);
    } catch {
      // The headers are for reports; the call's result stands.
    }
  }

  private decodeBody<T>(method: HttpMethod, path: string, status: number, text: string, decode: Decoder<T>): T {
    let json: unknown;
    try {
      json = text === '' ? null : JSON.parse(text);
    } catch {
      throw badResponse(method, path, status, redact(`not JSON: ${text.slice(0, 80)}`, this.secrets));
    }
    try {
      return decode(json);
    } catch (err) {
      throw badResponse(method, path, status, messageOf(err));
    }
  }
}
