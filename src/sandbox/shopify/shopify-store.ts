import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sameSecret } from '../../secrets/same-secret.js';
import { answerGraphql, type ApiState, type Bucket, type Subscription } from './store-api.js';
import { restOrder, restRefund } from './store-rest.js';
import { StoreOrders, type StoreLocation, type StoreOrderState, type StoreRefund, type StoreTopic } from './store-state.js';
import { WebhookSender, type WebhookFaults } from './store-webhooks.js';
import { seededRandom } from '../seeded-random.js';

export interface ShopifyStoreOptions {
  host?: string;
  port?: number;
  /** The Admin API access token the store takes (a custom app's). Default a fixed sandbox token. */
  token?: string;
  /** The app's secret its webhooks are signed with (X-Shopify-Hmac-Sha256). */
  webhookSecret?: string;
  /** The token's access scopes. Default read_orders, read_locations. */
  scopes?: string[];
  /** The shop's time zone (Shop.ianaTimezone). Default America/New_York. */
  zone?: string;
  /** The query cost bucket: the standard plan's by default (2,000 points, 100 a second). */
  bucket?: { maximumAvailable: number; restoreRate: number };
  locations?: StoreLocation[];
  /** Seed of the webhooks' faults. */
  seed?: number;
  now?: () => number;
}

/** The sandbox store's own handles: its orders' life, its webhooks' faults, its token, what it answered. */
export interface ShopifyStoreAdmin {
  orders: StoreOrders;
  locations: StoreLocation[];
  subscriptions: Subscription[];
  subscribe(topic: string, uri: string): Subscription;
  /** Drops every webhook subscription (as Shopify does after repeated failures). */
  unsubscribeAll(): void;
  setFaults(f: Partial<WebhookFaults>): void;
  /** How long a change takes to show in the order search, in ms. */
  setSearchLag(ms: number): void;
  /** The token stops working (the app uninstalled, the token rotated), or works again. */
  revokeToken(): void;
  restoreToken(): void;
  setScopes(scopes: string[]): void;
  /** Resolves once no webhook waits or is in flight. */
  webhooksIdle(): Promise<void>;
  webhookCounts(): WebhookSender['counts'];
  /** Every GraphQL answer's cost, and THROTTLED answers. */
  answers: Array<{ requested: number; actual: number | null; throttled: boolean }>;
  bucket: Bucket;
}

export interface ShopifyStore {
  /** The store's origin (SHOPIFY_STORE_URL). */
  url: string;
  token: string;
  webhookSecret: string;
  domain: string;
  /** The shop's time zone (Shop.ianaTimezone): its webhooks' times are in it. */
  zone: string;
  admin: ShopifyStoreAdmin;
  close(): Promise<void>;
}

export const SANDBOX_STORE_LOCATIONS: StoreLocation[] = [
  { id: 48752903, name: 'Main Warehouse' },
  { id: 61430117, name: 'North Depot' },
];

/**
 * A MAPPING_FILE (CSV) for the sandbox store over the sandbox service's demo account: both locations into Main
 * Warehouse, units not shipped yet reserved at A-03.
 */
export const SANDBOX_STORE_MAPPING = [
  'kind,upstream,service',
  'facility,shopify:default,Main Warehouse',
  'facility,shopify:default / shipping,Main Warehouse / A-03',
  'facility,shopify:48752903,Main Warehouse',
  'facility,shopify:48752903 / shipping,Main Warehouse / A-01',
  'facility,shopify:61430117,Main Warehouse',
  'facility,shopify:61430117 / shipping,Main Warehouse / A-02',
].join('\n');

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

function send(res: ServerResponse, status: number, json: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(json));
}

/** The app's query cost bucket, full: the standard plan's unless told (2,000 points, 100 a second). */
function bucketOf(given: ShopifyStoreOptions['bucket'], at: number): Bucket {
  const size = given?.maximumAvailable ?? 2000;
  return { maximumAvailable: size, restoreRate: given?.restoreRate ?? 100, available: size, at };
}

/** One request to the store: the GraphQL endpoint with its token, else 404 as a shop's page would. */
async function handle(req: IncomingMessage, res: ServerResponse, o: { state: ApiState; token: string; revoked: () => boolean }) {
  if (req.method !== 'POST' || !/^\/admin\/api\/\d{4}-\d{2}\/graphql\.json(\?.*)?$/.test(req.url ?? '')) {
    res.writeHead(404, { 'content-type': 'text/html' }).end('<!doctype html><title>Not Found</title>');
    return;
  }
  const given = String(req.headers['x-shopify-access-token'] ?? '');
  const text = await readBody(req);
  if (o.revoked() || !given || !sameSecret(given, o.token))
    return send(res, 401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
  let body: { query?: unknown; variables?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return send(res, 400, { errors: 'Invalid JSON in request body' });
  }
  const answer = await answerGraphql(o.state, body);
  send(res, answer.status, answer.json);
}

/**
 * A Shopify store for the sandbox (docs/sandbox.md, "A Shopify store"): the GraphQL Admin API at
 * `/admin/api/{version}/graphql.json` with its token, scopes, cost model and throttling, and webhooks signed as
 * Shopify signs them, with the faults a test or the demo chooses (lost, late, out of order, twice).
 */
export async function startShopifyStore(o: ShopifyStoreOptions = {}): Promise<ShopifyStore> {
  const now = o.now ?? Date.now;
  const token = o.token ?? 'shpat_sandbox0000000000000000000000';
  let revoked = false;
  let scopes = o.scopes ?? ['read_orders', 'read_locations'];
  let searchLag = 0;
  const webhookSecret = o.webhookSecret ?? 'sandbox-app-secret';
  const domain = 'sandbox-store.myshopify.com';
  const zone = o.zone ?? 'America/New_York';
  const locations = o.locations ?? SANDBOX_STORE_LOCATIONS;
  const subscriptions: Subscription[] = [];
  let nextSub = 1;
  const sender = new WebhookSender({
    secret: () => webhookSecret,
    shopDomain: domain,
    apiVersion: '2025-10',
    random: seededRandom(o.seed ?? 1),
  });
  // Each change told to the subscriptions of its topics: the refund's body for refunds/create, the order's for the rest.
  const tell = (order: StoreOrderState, topics: StoreTopic[], refund?: StoreRefund) => {
    for (const topic of topics)
      for (const sub of subscriptions.filter((x) => x.topic === topic))
        sender.send(
          topic,
          sub.uri,
          topic === 'refunds/create' && refund ? restRefund(order, refund, zone) : restOrder(order, zone, domain),
        );
  };
  const orders = new StoreOrders(tell, now, () => searchLag);
  const bucket = bucketOf(o.bucket, now());
  const answers: ShopifyStoreAdmin['answers'] = [];
  const subscribe = (topic: string, uri: string): Subscription => {
    const s = { id: nextSub++, topic, uri, createdAt: now() };
    subscriptions.push(s);
    return s;
  };
  const state: ApiState = {
    shop: { name: 'Sandbox Store', domain, zone },
    scopes: () => scopes,
    orders: orders.orders,
    locations: new Map(locations.map((l) => [l.id, l])),
    subscriptions,
    subscribe,
    bucket,
    now,
    onAnswer: (a) => answers.push(a),
  };
  const server = createServer((req, res) => {
    void handle(req, res, { state, token, revoked: () => revoked }).catch(() => send(res, 500, { errors: 'Internal error' }));
  });
  await new Promise<void>((r) => server.listen(o.port ?? 0, o.host ?? '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${o.host ?? '127.0.0.1'}:${port}`,
    get token() {
      return token;
    },
    webhookSecret,
    domain,
    zone,
    admin: {
      orders,
      locations,
      subscriptions,
      subscribe,
      unsubscribeAll: () => void subscriptions.splice(0),
      setFaults: (f) => (sender.faults = { ...sender.faults, ...f }),
      setSearchLag: (ms) => (searchLag = ms),
      revokeToken: () => (revoked = true),
      restoreToken: () => (revoked = false),
      setScopes: (s) => (scopes = s),
      webhooksIdle: () => sender.idle(),
      webhookCounts: () => sender.counts,
      answers,
      bucket,
    },
    async close() {
      sender.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
