import { buildSchema, execute, getOperationAST, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import { queryCost } from './store-cost.js';
import { connection, locationNode, orderNode } from './store-nodes.js';
import { matcher, searchStamp } from './store-search.js';
import { STORE_SCHEMA } from './store-schema.js';
import type { StoreLocation, StoreOrderState } from './store-state.js';

/** The query cost bucket of an app on a store (shopify.dev: a leaky bucket; the standard plan's 2,000 points, 100 a second). */
export interface Bucket {
  maximumAvailable: number;
  restoreRate: number;
  /** Points in the bucket at `at`. */
  available: number;
  at: number;
}

export interface Subscription {
  id: number;
  topic: string;
  uri: string;
  createdAt: number;
}

/** What the store's GraphQL API reads and changes. */
export interface ApiState {
  shop: { name: string; domain: string; zone: string };
  scopes: () => readonly string[];
  orders: ReadonlyMap<number, StoreOrderState>;
  locations: ReadonlyMap<number, StoreLocation>;
  subscriptions: Subscription[];
  subscribe(topic: string, uri: string): Subscription;
  bucket: Bucket;
  now: () => number;
  /** Every answer's requested and actual cost, and whether it was throttled (the bench, tests). */
  onAnswer?(cost: { requested: number; actual: number | null; throttled: boolean }): void;
}

export const schema: GraphQLSchema = buildSchema(STORE_SCHEMA);
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const topicName = (t: string) => t.replace('/', '_').toUpperCase();
const topicPath = (t: string) => t.toLowerCase().replace('_', '/');
const MAX_COST = 1000;

/** The scope that reading a root field needs (Shopify: read_orders, read_locations; webhooks need none). */
const NEEDS: Record<string, string> = { order: 'read_orders', orders: 'read_orders', locations: 'read_locations' };

function subscriptionNode(s: Subscription) {
  const at = iso(s.createdAt);
  return {
    id: `gid://shopify/WebhookSubscription/${s.id}`,
    legacyResourceId: String(s.id),
    topic: topicName(s.topic),
    uri: s.uri,
    format: 'JSON',
    createdAt: at,
    updatedAt: at,
  };
}

/** The root fields, each resolved from the state. */
function rootValue(st: ApiState) {
  const now = st.now();
  return {
    shop: { id: 'gid://shopify/Shop/1', name: st.shop.name, myshopifyDomain: st.shop.domain, ianaTimezone: st.shop.zone },
    currentAppInstallation: {
      id: 'gid://shopify/AppInstallation/1',
      accessScopes: st.scopes().map((handle) => ({ handle, description: handle })),
    },
    order: ({ id }: { id: string }) => {
      const o = st.orders.get(Number(/\/(\d+)$/.exec(id)?.[1]));
      return o ? orderNode(o, st.locations) : null;
    },
    orders: (a: { first?: number; after?: string; query?: string; sortKey?: string; reverse?: boolean }) => {
      const keyOf = (o: StoreOrderState) => (a.sortKey === 'UPDATED_AT' ? searchStamp(o, now) : a.sortKey === 'ID' ? o.id : o.createdAt);
      const found = [...st.orders.values()].filter(matcher(a.query, now)).sort((x, y) => keyOf(x) - keyOf(y) || x.id - y.id);
      if (a.reverse) found.reverse();
      const cursorOf = (o: StoreOrderState) => Buffer.from(JSON.stringify({ k: keyOf(o), id: o.id })).toString('base64');
      // A cursor names a place in the order, not an index: what changed meanwhile moves past it or behind it.
      let rest = found;
      if (a.after) {
        const { k, id } = JSON.parse(Buffer.from(a.after, 'base64').toString()) as { k: number; id: number };
        const sign = a.reverse ? -1 : 1;
        rest = found.filter((o) => sign * (keyOf(o) - k) > 0 || (keyOf(o) === k && sign * (o.id - id) > 0));
      }
      const conn = connection(rest, { first: a.first }, cursorOf);
      return {
        ...conn,
        nodes: conn.nodes.map((o) => orderNode(o, st.locations)),
        edges: conn.edges.map((e) => ({ ...e, node: orderNode(e.node, st.locations) })),
      };
    },
    locations: (a: { first?: number; after?: string }) => {
      const conn = connection([...st.locations.values()], a, (l) => Buffer.from(String(l.id)).toString('base64'));
      return { ...conn, nodes: conn.nodes.map(locationNode), edges: conn.edges.map((e) => ({ ...e, node: locationNode(e.node) })) };
    },
    webhookSubscriptions: (a: { first?: number; after?: string; topics?: string[] }) => {
      const subs = st.subscriptions.filter((s) => !a.topics || a.topics.includes(topicName(s.topic)));
      const conn = connection(subs, a, (s) => Buffer.from(String(s.id)).toString('base64'));
      return { ...conn, nodes: conn.nodes.map(subscriptionNode), edges: conn.edges.map((e) => ({ ...e, node: subscriptionNode(e.node) })) };
    },
    webhookSubscriptionCreate: (a: { topic: string; webhookSubscription: { uri?: string } }) => {
      const uri = a.webhookSubscription.uri;
      if (!uri || !/^https?:\/\//.test(uri))
        return { userErrors: [{ field: ['webhookSubscription', 'uri'], message: 'Address is invalid' }], webhookSubscription: null };
      return { userErrors: [], webhookSubscription: subscriptionNode(st.subscribe(topicPath(a.topic), uri)) };
    },
  };
}

/** The bucket's points now, restored at its rate since it was last spent. */
function refill(b: Bucket, now: number): void {
  b.available = Math.min(b.maximumAvailable, b.available + (b.restoreRate * (now - b.at)) / 1000);
  b.at = now;
}

const throttleStatus = (b: Bucket) => ({
  maximumAvailable: b.maximumAvailable,
  currentlyAvailable: Math.floor(b.available),
  restoreRate: b.restoreRate,
});

/** One POST to the GraphQL endpoint: its answer's status and body, as Shopify answers (errors in a 200). */
export async function answerGraphql(
  st: ApiState,
  body: { query?: unknown; variables?: unknown },
): Promise<{ status: number; json: unknown }> {
  if (typeof body.query !== 'string') return { status: 400, json: { errors: { query: 'Required parameter missing or invalid' } } };
  let doc: DocumentNode;
  try {
    doc = parse(body.query);
  } catch (err) {
    return { status: 200, json: { errors: [{ message: (err as Error).message, extensions: { code: 'PARSE_ERROR' } }] } };
  }
  const invalid = validate(schema, doc);
  if (invalid.length) return { status: 200, json: { errors: invalid.map((e) => ({ message: e.message, locations: e.locations })) } };
  const op = getOperationAST(doc)!;
  const vars = (body.variables ?? {}) as Record<string, unknown>;
  const requested = queryCost(schema, doc, op, vars);
  const b = st.bucket;
  refill(b, st.now());
  if (requested > MAX_COST) {
    st.onAnswer?.({ requested, actual: null, throttled: false });
    const message = `Query cost is ${requested}, which exceeds the single query max cost limit (${MAX_COST}).`;
    return { status: 200, json: { errors: [{ message, extensions: { code: 'MAX_COST_EXCEEDED', cost: requested, maxCost: MAX_COST } }] } };
  }
  const cost = (actual: number | null) => ({ requestedQueryCost: requested, actualQueryCost: actual, throttleStatus: throttleStatus(b) });
  if (requested > b.available) {
    st.onAnswer?.({ requested, actual: null, throttled: true });
    return {
      status: 200,
      json: {
        errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/limits' } }],
        extensions: { cost: cost(null) },
      },
    };
  }
  const denied = op.selectionSet.selections.flatMap((s) =>
    'name' in s && NEEDS[s.name.value] && !st.scopes().includes(NEEDS[s.name.value]!) ? [s.name.value] : [],
  );
  if (denied.length) {
    const message = `Access denied for ${denied[0]} field. Required access: \`${NEEDS[denied[0]!]}\` access scope.`;
    return {
      status: 200,
      json: { data: null, errors: [{ message, extensions: { code: 'ACCESS_DENIED' } }], extensions: { cost: cost(1) } },
    };
  }
  b.available -= requested;
  const result = await execute({ schema, document: doc, rootValue: rootValue(st), variableValues: vars });
  const actual = queryCost(schema, doc, op, vars, result.data ?? {});
  // The bucket is refunded what the query was asked for but did not use.
  b.available = Math.min(b.maximumAvailable, b.available + requested - actual);
  st.onAnswer?.({ requested, actual, throttled: false });
  const json: Record<string, unknown> = { data: result.data ?? null, extensions: { cost: cost(actual) } };
  if (result.errors?.length) json.errors = result.errors.map((e) => ({ message: e.message, path: e.path }));
  return { status: 200, json };
}
