import type { StoreClient } from './store-client.js';

/** What `check` reads of a store: the shop, the token's scopes, the locations, the webhook subscriptions. */
export const STORE_CHECK = `query StoreCheck {
  shop { name myshopifyDomain ianaTimezone }
  currentAppInstallation { accessScopes { handle } }
  locations(first: 100, includeInactive: true) { nodes { legacyResourceId name isActive } }
  webhookSubscriptions(first: 100) { nodes { id topic uri } }
}`;
/** The shop 1, the installation 1 and a scope 1, the locations and subscriptions 2 + 100 each. */
export const STORE_CHECK_COST = 1 + 2 + 102 + 102;

/** `check --register-webhooks`: one subscription (a mutation: 10 points). */
export const REGISTER_WEBHOOK = `mutation RegisterWebhook($topic: WebhookSubscriptionTopic!, $sub: WebhookSubscriptionInput!) {
  webhookSubscriptionCreate(topic: $topic, webhookSubscription: $sub) {
    webhookSubscription { id topic uri }
    userErrors { field message }
  }
}`;

/** The webhooks the store's orders come by (upstream-feed.md, "A store as the source"). */
export const STORE_TOPICS = ['orders/create', 'orders/updated', 'orders/cancelled', 'refunds/create'] as const;
export const topicEnum = (topic: string) => topic.replace('/', '_').toUpperCase();

export interface StoreFacts {
  shop: { name: string; domain: string; zone: string };
  scopes: string[];
  locations: Array<{ id: string; name: string; active: boolean }>;
  subscriptions: Array<{ id: string; topic: string; uri: string }>;
}

type CheckData = {
  shop: { name: string; myshopifyDomain: string; ianaTimezone: string };
  currentAppInstallation: { accessScopes: Array<{ handle: string }> };
  locations: { nodes: Array<{ legacyResourceId: string; name: string; isActive: boolean }> };
  webhookSubscriptions: { nodes: Array<{ id: string; topic: string; uri: string }> };
};

/** Reads the store's facts (throws a StoreError: 401, a missing scope, not a store). */
export async function readStore(client: StoreClient, signal?: AbortSignal): Promise<StoreFacts> {
  const d = await client.query<CheckData>(STORE_CHECK, {}, STORE_CHECK_COST, signal);
  return {
    shop: { name: d.shop.name, domain: d.shop.myshopifyDomain, zone: d.shop.ianaTimezone },
    scopes: d.currentAppInstallation.accessScopes.map((s) => s.handle),
    locations: d.locations.nodes.map((l) => ({ id: String(l.legacyResourceId), name: l.name, active: l.isActive })),
    subscriptions: d.webhookSubscriptions.nodes.map((s) => ({ id: s.id, topic: s.topic.toLowerCase().replace('_', '/'), uri: s.uri })),
  };
}

/** Each topic's state: subscribed at `uri`, subscribed elsewhere only, or missing. */
export function topicStates(facts: StoreFacts, uri: string | undefined) {
  return STORE_TOPICS.map((topic) => {
    const subs = facts.subscriptions.filter((s) => s.topic === topic);
    const here = uri !== undefined && subs.some((s) => s.uri === uri);
    return { topic, state: here ? 'ok' : subs.length ? 'elsewhere' : 'missing', uris: subs.map((s) => s.uri) } as const;
  });
}

/** Subscribes the topics to `uri`; answers each topic's outcome (a user error's message when refused). */
export async function registerWebhooks(
  client: StoreClient,
  topics: readonly string[],
  uri: string,
): Promise<Array<{ topic: string; error?: string }>> {
  const out: Array<{ topic: string; error?: string }> = [];
  for (const topic of topics) {
    const d = await client.query<{ webhookSubscriptionCreate: { userErrors: Array<{ message: string }> } | null }>(
      REGISTER_WEBHOOK,
      { topic: topicEnum(topic), sub: { uri, format: 'JSON' } },
      10,
    );
    const errors = d.webhookSubscriptionCreate?.userErrors ?? [];
    out.push(errors.length ? { topic, error: errors.map((e) => e.message).join('; ') } : { topic });
  }
  return out;
}
