import { defaults } from '../../config/defaults.js';
import type { Config } from '../../config/read-config.js';
import { walkFeed } from '../feed/walk-feed.js';
import type { Kind } from '../kinds/kind.js';
import type { Logger } from '../log/logger.js';
import type { QueueSet } from '../queue/queues.js';
import { addJobs, recordJob } from '../queue/record-jobs.js';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { StoreSource } from '../sources/shopify/store-source.js';
import { storeClient, storeKind } from './feed-sources.js';

export interface BackfillResult {
  stream: string;
  /** The day read from: --since, or the go-live floor when it is later. */
  from: string;
  pages: number;
  queued: number;
  duplicates: number;
  invalid: number;
}

/** What the store has for a backfill: its stream's kind, the day read from, and its records page by page. */
export interface StoreRead {
  kind: Kind;
  /** The day read from: `since`, or the go-live floor when it is later. */
  from: string;
  pages: AsyncGenerator<{ items: unknown[] }>;
}

/**
 * The orders of the store updated since that day (not before the go-live floor), page by page, as the pull reads
 * them, without the pull's cursor: what `import orders --from shopify` queues, and its dry run plans.
 */
export function readStore(d: { config: Config; logger: Logger; kinds: readonly Kind[] }, since: string, signal?: AbortSignal): StoreRead {
  const kind = storeKind(d.config, d.kinds);
  const client = storeClient(d.config, d.logger);
  if (!kind || !client) throw new Error('SHOPIFY_STORE_URL: is required to import from the store');
  const spec = kind.feed.stores!.shopify!;
  const floor = kind.job.goLive ? d.config.goLive[kind.job.goLive.setting] : undefined;
  const from = floor && floor > since ? floor : since;
  const source = new StoreSource({
    client,
    stream: kind.stream,
    transform: { stream: kind.stream, name: spec, fn: kind.record.transforms![spec]! },
    lookBackMs: 0,
    floor: from,
    graceMs: defaults.shopifyWebhookGraceSeconds * 1000,
  });
  async function* pages(): AsyncGenerator<{ items: unknown[] }> {
    for await (const { page } of walkFeed({ stream: kind!.stream, upstream: source, cursor: undefined, pageSize: 250, signal })) yield page;
  }
  return { kind, from, pages: pages() };
}

/**
 * `import orders --from shopify --since DATE`: queues every order readStore reads, as the pull would make them,
 * without moving the pull's cursor. Records already queued are no-ops.
 */
export async function backfillStore(
  d: { config: Config; logger: Logger; kinds: readonly Kind[]; redis: Redis; queues: QueueSet },
  since: string,
  signal?: AbortSignal,
): Promise<BackfillResult> {
  const { kind, from, pages } = readStore(d, since, signal);
  const out: BackfillResult = { stream: kind.stream, from, pages: 0, queued: 0, duplicates: 0, invalid: 0 };
  const queue = d.queues.get(kind.stream);
  for await (const { items } of pages) {
    const made = items.map((raw) => recordJob(kind, raw, 'feed'));
    const added = await addJobs(
      queue,
      d.redis,
      made.map((m) => m.job),
      kind,
    );
    out.pages++;
    out.queued += added.queued;
    out.duplicates += added.duplicates;
    out.invalid += made.filter((m) => !m.valid).length;
  }
  return out;
}
