import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SANDBOX_STORE_MAPPING, startShopifyStore, type ShopifyStore } from '../../sandbox/shopify/shopify-store.js';
import { liveLives } from '../../sandbox/shopify/store-lives.js';

/** Orders the store holds when it starts, one a day over the days before. */
const START_ORDERS = 8;
/** How often one more order lives its life in the store while it runs (its webhooks go to whatever subscribed). */
const EVERY_MS = 60_000;
const DAY = 86_400_000;

/** The sandbox store of `sandbox --store`, with the settings that make it the orders' source. */
export interface SandboxStore {
  store: ShopifyStore;
  /** The MAPPING_FILE it wrote: the store's locations as facilities of the demo account. */
  mappingFile: string;
  /** `SHOPIFY_STORE_URL=... SHOPIFY_ACCESS_TOKEN=... INGEST_HMAC_SECRET=... MAPPING_FILE=...`: its documented credentials. */
  settings: string;
  close(): Promise<void>;
}

/**
 * `sandbox --store`: a sandbox Shopify store (src/sandbox/shopify/) beside the service, holding orders of the last days
 * and one more order's life every minute, with its fixed, documented credentials (docs/sandbox.md, "A Shopify store"):
 * the settings printed make it the orders' source, so docs/shopify.md can be followed end to end against it.
 */
export async function startSandboxStore(o: { host: string; port: number }): Promise<SandboxStore> {
  const store = await startShopifyStore({ host: o.host, port: o.port });
  const dir = mkdtempSync(join(tmpdir(), 'inventory-sync-sandbox-store-'));
  const mappingFile = join(dir, 'mapping.csv');
  writeFileSync(mappingFile, `${SANDBOX_STORE_MAPPING}\n`);
  // Whole days back, so that each order's life is over before now and every change is in the search.
  await liveLives(store, START_ORDERS, { from: Date.now() - (START_ORDERS + 1) * DAY });
  let next = START_ORDERS;
  const timer = setInterval(() => void liveLives(store, 1, { from: Date.now() - EVERY_MS, first: next++ }), EVERY_MS);
  timer.unref();
  return {
    store,
    mappingFile,
    settings:
      `SHOPIFY_STORE_URL=${store.url} SHOPIFY_ACCESS_TOKEN=${store.token} ` +
      `INGEST_HMAC_SECRET=${store.webhookSecret} MAPPING_FILE=${mappingFile}`,
    async close() {
      clearInterval(timer);
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What `sandbox --store` prints of the store: where it is, what it holds, and its settings. */
export function sandboxStoreBanner(s: SandboxStore): string {
  return (
    `Sandbox Shopify store (shop ${s.store.domain}, GraphQL Admin API at ${s.store.url}/admin/api/2025-10/graphql.json): ` +
    `${START_ORDERS} orders of the last days, one more every minute; locations mapped in ${s.mappingFile}\n` +
    `Make it the orders' source (docs/shopify.md) with:\n  ${s.settings}\n`
  );
}
