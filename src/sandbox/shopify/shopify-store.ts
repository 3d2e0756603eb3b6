import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sameSecret } from '../../secrets/same-secret.js';
import { answerGraphql, type ApiState, type Bucket, type Subscription } from './store-api.js';
import { restOrder, restRefund } from './store-rest.js';
import { StoreOrders, type StoreLocation } from './store-state.js';
import { seeded, WebhookSender, type WebhookFaults } from './store-webhooks.js';

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
  admin: ShopifyStoreAdmin;
  close(): Promise<void>;
}

export const SANDBOX_STORE_LOCATIONS: StoreLocation[] = [
  { id: 48752903, name: 'Main Warehouse' },
  { id: 61430117, name: 'North Depot' },
];

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
  const sender = new WebhookSender({ secret: () => webhookSecret, shopDomain: domain, apiVersion: '2025-10', random: seeded(o.seed ?? 1) });
  const orders = new StoreOrders(
    (order, topics, refund) => {
      for (const topic of topics)
        for (const s of subscriptions.filter((x) => x.topic === topic))
          sender.send(
            topic,
            s.uri,
            topic === 'refunds/create' && refund ? restRefund(order, refund, zone) : restOrder(order, zone, domain),
          );
    },
    now,
    () => searchLag,
  );
  const bucket: Bucket = {
    maximumAvailable: 2000,
    restoreRate: 100,
    ...o.bucket,
    available: o.bucket?.maximumAvailable ?? 2000,
    at: now(),
  };
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
    void handle(req, res).catch(() => send(res, 500, { errors: 'Internal error' }));
  });
  async function handle(req: IncomingMessage, res: ServerResponse) {
    if (req.method !== 'POST' || !/^\/admin\/api\/\d{4}-\d{2}\/graphql\.json(\?.*)?$/.test(req.url ?? '')) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<!doctype html><title>Not Found</title>');
      return;
    }
    const given = String(req.headers['x-shopify-access-token'] ?? '');
    const text = await readBody(req);
    if (revoked || !given || !sameSecret(given, token))
      return send(res, 401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
    let body: { query?: unknown; variables?: unknown };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      return send(res, 400, { errors: 'Invalid JSON in request body' });
    }
    const answer = await answerGraphql(state, body);
    send(res, answer.status, answer.json);
  }
  await new Promise<void>((r) => server.listen(o.port ?? 0, o.host ?? '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${o.host ?? '127.0.0.1'}:${port}`,
    get token() {
      return token;
    },
    webhookSecret,
    domain,
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
