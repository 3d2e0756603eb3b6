import { createGraphQLClient, type ClientResponse, type GraphQLClient } from '@shopify/graphql-client';
import pRetry from 'p-retry';
import { messageOf } from '../../errors/message-of.js';
import { redact } from '../../log/logger.js';
import { SecretFile } from '../../secrets/secret-file.js';
import { storeError, StoreError } from './store-errors.js';
import { CostBucket, type ThrottleStatus } from './throttle.js';

export interface StoreClientOptions {
  /** The store's origin (SHOPIFY_STORE_URL): `https://{store}.myshopify.com`, or any http(s) origin (a local store). */
  storeUrl: string;
  apiVersion: string;
  /** The Admin API access token (a secret: never in an error or a log line). */
  token: string;
  /** SHOPIFY_ACCESS_TOKEN_FILE: read again on a 401, and the query sent once more when it changed. */
  tokenFile?: string;
  onTokenChange?(token: string): void;
  onTokenProblem?(line: string): void;
  /** Time-out of one request, in ms. Default 30 000. */
  timeoutMs?: number;
  /** Tries of a query the store throttled or could not answer, before the error is thrown. Default 5. */
  attempts?: number;
  /** First delay between two tries after a failure, in ms (doubles, randomized). Default 500. */
  minRetryDelayMs?: number;
  /** The fetch to send with (tests); default the global one. */
  fetch?: typeof fetch;
  now?: () => number;
  /** Told of every answer's cost (the bench, status). */
  onCost?(cost: QueryCost): void;
}

/** What one answer cost (`extensions.cost`). */
export interface QueryCost {
  requestedQueryCost: number;
  actualQueryCost: number;
  throttleStatus?: ThrottleStatus;
}

type ErrorList = NonNullable<NonNullable<ClientResponse['errors']>['graphQLErrors']>;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (ms <= 0) return resolve();
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

/**
 * A store's GraphQL Admin API (`POST {store}/admin/api/{version}/graphql.json`, `X-Shopify-Access-Token`), through
 * Shopify's own client (@shopify/graphql-client). Each query waits until the store's cost bucket holds what it asks
 * (as the last answer's throttleStatus says); a THROTTLED answer waits as its restore rate says and asks again.
 */
export class StoreClient {
  readonly url: string;
  readonly bucket: CostBucket;
  private readonly gql: GraphQLClient;
  private readonly token: SecretFile;

  constructor(private readonly o: StoreClientOptions) {
    this.url = `${o.storeUrl.replace(/\/+$/, '')}/admin/api/${o.apiVersion}/graphql.json`;
    this.token = new SecretFile(o.token, o.tokenFile, o.onTokenProblem);
    this.bucket = new CostBucket(o.now);
    this.gql = createGraphQLClient({
      url: this.url,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      customFetchApi: o.fetch ?? fetch,
      retries: 0,
    });
  }

  /** The token now (for the logger's redaction list and tests). */
  get tokenValue(): string {
    return this.token.value;
  }

  /**
   * One query (or mutation): `cost` is what it asks of the bucket (its requested cost, order-query.ts). Answers the
   * data; throws a StoreError (401, ACCESS_DENIED, not a store, unavailable after the tries, throttled too long).
   */
  async query<T>(text: string, variables: Record<string, unknown>, cost: number, signal?: AbortSignal): Promise<T> {
    return pRetry(() => this.once<T>(text, variables, cost, signal), {
      retries: (this.o.attempts ?? 5) - 1,
      minTimeout: this.o.minRetryDelayMs ?? 500,
      maxTimeout: 10_000,
      randomize: true,
      signal,
      shouldRetry: ({ error }) => error instanceof StoreError && error.retryable,
    });
  }

  private async once<T>(text: string, variables: Record<string, unknown>, cost: number, signal?: AbortSignal): Promise<T> {
    await sleep(this.bucket.waitMs(cost), signal);
    const sentWith = this.token.value;
    let answer = await this.send<T>(text, variables, signal);
    if (answer.errors?.networkStatusCode === 401 && ((await this.token.reload()) || this.token.value !== sentWith)) {
      this.o.onTokenChange?.(this.token.value);
      answer = await this.send<T>(text, variables, signal);
    }
    return this.read(answer, signal);
  }

  private send<T>(text: string, variables: Record<string, unknown>, signal?: AbortSignal): Promise<ClientResponse<T>> {
    const timeout = AbortSignal.timeout(this.o.timeoutMs ?? 30_000);
    return this.gql.request<T>(text, {
      variables,
      headers: { 'X-Shopify-Access-Token': this.token.value },
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  }

  /** The answer's data, its cost learnt; or the StoreError it is. */
  private async read<T>(answer: ClientResponse<T>, signal?: AbortSignal): Promise<T> {
    const cost = answer.extensions?.cost as QueryCost | undefined;
    if (cost) {
      this.bucket.learn(cost.throttleStatus);
      this.o.onCost?.(cost);
    }
    const errors = answer.errors;
    if (!errors) {
      if (answer.data === undefined || answer.data === null) throw storeError('STORE_BAD_RESPONSE', `${this.url}: an answer without data`);
      return answer.data;
    }
    if (signal?.aborted) throw signal.reason;
    const list = errors.graphQLErrors ?? [];
    if (list.length) return this.graphQLError(list, answer.data);
    throw this.statusError(errors.networkStatusCode, errors.message ?? '', errors.response);
  }

  private graphQLError<T>(list: ErrorList, data: T | undefined): never {
    const codes = list.map((e) => e.extensions?.code);
    const said = list
      .map((e) => e.message)
      .join('; ')
      .slice(0, 300);
    if (codes.includes('THROTTLED')) throw storeError('STORE_THROTTLED', `${this.url}: throttled (${said})`);
    if (codes.includes('ACCESS_DENIED'))
      throw storeError('STORE_ACCESS_DENIED', `${this.url}: the access token lacks a scope: ${said}`, 403);
    if (codes.includes('MAX_COST_EXCEEDED')) throw storeError('STORE_BAD_RESPONSE', `${this.url}: the query costs too much: ${said}`);
    throw storeError('STORE_BAD_RESPONSE', `${this.url}: ${data ? 'a partial answer' : 'the query was refused'}: ${said}`);
  }

  private statusError(status: number | undefined, message: string, response?: Response): StoreError {
    response?.body?.cancel().catch(() => undefined);
    const at = `${this.url}`;
    if (status === undefined) return storeError('STORE_UNAVAILABLE', `${at}: no answer (${redact(message, [this.token.value])})`);
    if (status === 401) return storeError('STORE_UNAUTHORIZED', `${at}: the store refused the access token (HTTP 401)`, 401);
    if (status === 402 || status === 423)
      return storeError('STORE_ACCESS_DENIED', `${at}: the store is frozen or locked (HTTP ${status}): it takes no API call now`, status);
    if (status === 403) return storeError('STORE_ACCESS_DENIED', `${at}: the access token lacks a scope (HTTP 403)`, 403);
    if (status === 429 || status >= 500) return storeError('STORE_UNAVAILABLE', `${at}: unavailable (HTTP ${status})`, status);
    if (status === 404 || status === 200 || status === 301 || status === 302)
      return storeError(
        'STORE_NOT_A_STORE',
        `${at}: not a Shopify store's Admin API (HTTP ${status}${message ? `, ${messageOf(message)}` : ''})`,
        status,
      );
    return storeError('STORE_BAD_RESPONSE', `${at}: refused the request (HTTP ${status})`, status);
  }
}
