import { Pool, type Dispatcher } from 'undici';
import { defaults } from '../../config/defaults.js';
import { apiOf, type ApiOf } from './api-of.js';
import { RequestBudget } from './budget/budget.js';
import { budgeted } from './layers/budget-layer.js';
import { compose, tracing, type Layer, type Send } from './layers/call-layers.js';
import { credentialRotation, followedPaths, readRetries } from './layers/client-layers.js';
import { Credentials } from './credentials.js';
import { httpSend } from './layers/http-send.js';
import { readOnly } from './layers/read-only-api.js';
import type { ApiCall } from './api-call.js';
import { serviceCalls, type CallTable, type ServiceCalls } from './service-calls.js';

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
  /** A dry run's client: every write (any call but a GET) refused before any other layer sees it. Default false. */
  readOnly?: boolean;
}

/** The methods of every row of `serviceCalls`, on the client itself (see `ServiceClient`'s constructor). */
export interface ServiceClient extends ApiOf<ServiceCalls> {}

/**
 * The service over HTTP (undici, keep-alive), every answer validated, every failure a ServiceError. Its calls are the
 * rows of `serviceCalls`, each through one request function: the client's layers (metrics' `onCall`, read retries,
 * a 401's second try with rotated credentials, the followed-path check, the budget) around one HTTP request.
 */
export class ServiceClient {
  readonly account: string;
  /** The one request function every call goes through, with the client's layers: for a table of one's own (`apiOf`). */
  readonly request: Send;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;

  constructor(opts: ServiceClientOptions) {
    const base = new URL(opts.baseUrl);
    this.account = opts.account;
    this.ownsDispatcher = !opts.dispatcher;
    this.dispatcher =
      opts.dispatcher ??
      new Pool(base.origin, {
        connections: opts.connections ?? defaults.serviceConnections,
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 600_000,
      });
    if (!opts.credentials && (opts.apiKey === undefined || opts.apiSecret === undefined))
      throw new RangeError('ServiceClient needs apiKey and apiSecret, or credentials');
    const credentials = opts.credentials ?? Credentials.fixed(opts.apiKey!, opts.apiSecret!);
    const layers: Layer[] = [
      ...(opts.readOnly ? [readOnly] : []),
      ...(opts.onCall ? [tracing(opts.onCall)] : []),
      readRetries(opts.readRetries ?? defaults.readRetries, opts.retryMinDelayMs ?? defaults.readRetryMinDelayMs),
      credentialRotation(credentials),
      followedPaths(this.account),
      budgeted(opts.budget ?? RequestBudget.unlimited()),
    ];
    const send = httpSend({
      origin: base.origin,
      basePath: base.pathname.replace(/\/+$/, ''),
      dispatcher: this.dispatcher,
      secrets: () => credentials.secretForms(),
      entityTimeoutMs: opts.entityTimeoutMs ?? defaults.entityTimeoutMs,
      collectionTimeoutMs: opts.collectionTimeoutMs ?? defaults.collectionTimeoutMs,
      maxResponseBytes: opts.maxResponseBytes ?? defaults.maxResponseBytes,
    });
    this.request = compose(layers, send);
    Object.assign(this, apiOf(serviceCalls, this.account, this.request));
  }

  /** The typed API of another table (a copy of `serviceCalls` with rows of one's own) through this client. */
  apiOf<T extends CallTable>(table: T): ApiOf<T> {
    return apiOf(table, this.account, this.request);
  }

  /** Closes the connections this client opened (not an injected dispatcher). */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}
