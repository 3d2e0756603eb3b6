import type { Config } from '../../config/read-config.js';
import type { CatalogApi } from '../catalog/types.js';
import type { Kind } from '../kinds/kind.js';
import type { Logger } from '../log/logger.js';
import { messageOf } from '../errors/message-of.js';
import { legacyId } from '../sources/shopify/order-payload.js';
import { MAX_QUERY_COST, ORDERS_QUERY, pageCost, pageSize } from '../sources/shopify/order-query.js';
import { StoreError } from '../sources/shopify/store-errors.js';
import { readStore, registerWebhooks, topicStates, type StoreFacts } from '../sources/shopify/store-reads.js';
import { storeClient, storeKind } from './feed-sources.js';

/** What `check` found of the store (SHOPIFY_STORE_URL): read only, unless `--register-webhooks` asked to subscribe. */
export interface StoreCheck {
  url: string;
  /** The stream the store is the source of. */
  stream: string;
  state: 'ok' | 'refusing' | 'unreachable';
  problem: { code: string; message: string; hint: string } | null;
  shop: StoreFacts['shop'] | null;
  /** Scopes the pull needs that the token lacks. */
  missingScopes: string[];
  /** Each location, the facility its alias maps to (null: the mapping lacks it). */
  locations: Array<{ id: string; name: string; alias: string; facility: string | null }>;
  /** SKUs of a page of the store's orders that name no product of the service. */
  unknownSkus: string[];
  /** Each of the four topics: subscribed here, elsewhere only, or missing; where the receiver is (INGEST_PUBLIC_URL). */
  webhooks: { uri: string | null; topics: ReturnType<typeof topicStates> };
  /** With --register-webhooks: what was subscribed. */
  registered?: Array<{ topic: string; error?: string }>;
  gaps: number;
}

const NEEDED_SCOPES = ['read_orders'];

/** The store's facts, the mapping's gaps for them, and (asked) the missing subscriptions made. */
export async function checkStore(o: {
  config: Config;
  logger: Logger;
  catalog: CatalogApi;
  kinds: readonly Kind[];
  register?: boolean;
}): Promise<StoreCheck | undefined> {
  const kind = storeKind(o.config, o.kinds);
  const client = storeClient(o.config, o.logger);
  if (!kind || !client) return undefined;
  const publicUrl = o.config.ingest.publicUrl;
  // With ACCOUNTS_FILE the receiver takes each account's pushes under its name.
  const path = o.config.accountName === undefined ? kind.stream : `${o.config.accountName}/${kind.stream}`;
  const uri = publicUrl ? `${publicUrl}/ingest/${path}` : undefined;
  const out: StoreCheck = {
    url: client.url,
    stream: kind.stream,
    state: 'ok',
    problem: null,
    shop: null,
    missingScopes: [],
    locations: [],
    unknownSkus: [],
    webhooks: { uri: uri ?? null, topics: [] },
    gaps: 0,
  };
  try {
    const facts = await readStore(client);
    out.shop = facts.shop;
    out.missingScopes = NEEDED_SCOPES.filter((s) => !facts.scopes.includes(s));
    for (const l of facts.locations.filter((x) => x.active)) {
      const alias = `shopify:${l.id} / shipping`;
      const found = await o.catalog.facility(alias);
      out.locations.push({ id: l.id, name: l.name, alias, facility: found.ok ? found.facility.path : null });
    }
    out.webhooks.topics = topicStates(facts, uri);
    if (o.register && uri) {
      const missing = out.webhooks.topics.filter((t) => t.state !== 'ok').map((t) => t.topic);
      out.registered = await registerWebhooks(client, missing, uri);
      out.webhooks.topics = topicStates(await readStore(client), uri);
    }
    if (!out.missingScopes.length) out.unknownSkus = await unknownSkus(client, o.catalog);
  } catch (err) {
    const e = err instanceof StoreError ? err : undefined;
    out.state = e && !e.retryable ? 'refusing' : 'unreachable';
    out.problem = { code: e?.code ?? 'STORE_UNAVAILABLE', message: messageOf(err), hint: e?.hint ?? 'Check SHOPIFY_STORE_URL.' };
  }
  out.gaps = out.missingScopes.length + out.locations.filter((l) => !l.facility).length + out.unknownSkus.length;
  out.gaps += out.webhooks.topics.filter((t) => t.state !== 'ok').length;
  return out;
}

/** SKUs of a page of the store's orders (its oldest changes first) that the service does not have (through MAPPING_FILE). */
async function unknownSkus(client: NonNullable<ReturnType<typeof storeClient>>, catalog: CatalogApi): Promise<string[]> {
  type Page = { orders: { nodes: Array<{ lineItems: { nodes: Array<{ id: string; sku?: string | null }> } }> } };
  const first = pageSize(MAX_QUERY_COST);
  const d = await client.query<Page>(ORDERS_QUERY, { first, after: null, query: null }, pageCost(first));
  const skus = [
    ...new Set(
      d.orders.nodes.flatMap((n) => n.lineItems.nodes.map((li) => (li.sku ?? '').trim() || `(line item ${legacyId(li.id)} has no SKU)`)),
    ),
  ];
  const known = await catalog.products(skus.filter((s) => !s.startsWith('(')));
  return skus.filter((s) => !known.has(s));
}
