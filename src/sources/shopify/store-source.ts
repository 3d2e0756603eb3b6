import { createHash } from 'node:crypto';
import type { SourcePage } from '../../feed/feed-source.js';
import { transformPayload, type Transform } from '../../feed/transform.js';
import type { FetchPageOptions } from '../../feed/upstream-client.js';
import { zodProblemText } from '../../errors/zod-problems.js';
import { HEAD_CHARS, UnreadableRecord } from '../../records/unreadable-record.js';
import type { StreamName } from '../../records/stream-name.js';
import { cutShort, restOrder, storeOrderSchema, type StoreOrder } from './order-payload.js';
import {
  ALONE_COST,
  ALONE_NESTING,
  MAX_QUERY_COST,
  ORDER_QUERY,
  ORDERS_QUERY,
  PAGE_NESTING,
  pageCost,
  pageSize,
  updatedSince,
} from './order-query.js';
import type { StoreClient } from './store-client.js';
import { decodeCursor, encodeCursor, later, type StoreCursor } from './store-cursor.js';

export interface StoreSourceOptions {
  client: StoreClient;
  /** The stream the store feeds, and the transform its kind declares for the store's orders (the webhook's body). */
  stream: StreamName;
  transform: Transform;
  /** How far before the cursor each pull reads again, in ms (SHOPIFY_LOOKBACK_SECONDS). */
  lookBackMs: number;
  /** Where the first pull starts (`YYYY-MM-DD`, the go-live floor); none: every order the token may read. */
  floor?: string;
  /**
   * Told, once a page is queued, the snapshots it found first (their job was new) that are older than `graceMs`:
   * with webhooks on, what no webhook brought. Not told during the first read of the store (everything is new then).
   */
  onFound?(found: string[]): Promise<void>;
  /** A snapshot younger than this may still have its webhook on the way, in ms. */
  graceMs: number;
  now?: () => number;
}

type PageData = {
  shop: { ianaTimezone: string };
  orders: { pageInfo: { hasNextPage: boolean; endCursor?: string | null }; nodes: unknown[] };
};

/** What one order read becomes: its record or a bad record naming it, with what the found count needs. */
interface Read {
  item: unknown;
  key?: string;
  updatedAt?: string;
}

/**
 * A Shopify store as the source of a stream's pages (upstream-feed.md, "A store as the source"): the orders updated
 * since the cursor less a look-back, oldest change first, in pages that ask at most what the cost bucket holds (and
 * never more than 1,000 points), each order made a record by the kind's transform of its webhook body.
 */
export class StoreSource {
  constructor(private readonly o: StoreSourceOptions) {}

  serves(stream: StreamName): boolean {
    return stream === this.o.stream;
  }

  async fetchPage(_stream: StreamName, p: FetchPageOptions): Promise<SourcePage> {
    const c = decodeCursor(p.after);
    const from = c.after ? c.from : this.floorOf(c);
    const first = pageSize(this.o.client.bucket.size() ?? MAX_QUERY_COST, p.limit);
    const vars = { first, after: c.after ?? null, query: from ? updatedSince(from) : null };
    const data = await this.o.client.query<PageData>(ORDERS_QUERY, vars, pageCost(first), p.signal);
    const zone = data.shop.ianaTimezone;
    const reads: Read[] = [];
    let newest = c.after ? c.newest : c.since;
    for (const node of data.orders.nodes) {
      const read = await this.readOrder(node, zone, p.signal);
      newest = later(newest, read.updatedAt);
      reads.push(read);
    }
    const { hasNextPage, endCursor } = data.orders.pageInfo;
    const more = hasNextPage && !!endCursor;
    const counts = c.counts ? { counts: true } : {};
    const next: StoreCursor = more
      ? { from, after: endCursor!, newest, ...counts }
      : { ...(newest ? { since: newest } : {}), counts: true };
    const startedAt = this.o.now?.() ?? Date.now();
    return {
      items: reads.map((r) => r.item),
      cursor: encodeCursor(next),
      hasMore: more,
      // The first read of the store finds everything first: only the reads after it count.
      ...(this.o.onFound && c.counts ? { queued: (fresh) => this.found(reads, fresh, startedAt) } : {}),
    };
  }

  /** Where a fresh query reads from: the look-back before the cursor, else the go-live floor. */
  private floorOf(c: StoreCursor): string | undefined {
    if (c.since) return new Date(Date.parse(c.since) - this.o.lookBackMs).toISOString();
    return this.o.floor ? `${this.o.floor}T00:00:00Z` : undefined;
  }

  private found(reads: Read[], fresh: readonly boolean[], startedAt: number): Promise<void> {
    const found = reads
      .filter((r, i) => fresh[i] && r.key && r.updatedAt && Date.parse(r.updatedAt) < startedAt - this.o.graceMs)
      .map((r) => `${r.key}@${r.updatedAt}`);
    return found.length ? this.o.onFound!(found) : Promise.resolve();
  }

  /** One order of a page: read alone when the page's nesting cut a list, then made a record by the transform. */
  private async readOrder(node: unknown, zone: string, signal?: AbortSignal): Promise<Read> {
    let parsed = storeOrderSchema.safeParse(node);
    if (parsed.success && cutShort(parsed.data, PAGE_NESTING)) {
      const id = `gid://shopify/Order/${parsed.data.legacyResourceId}`;
      const alone = await this.o.client.query<{ order: unknown }>(ORDER_QUERY, { id }, ALONE_COST, signal);
      if (alone.order) parsed = storeOrderSchema.safeParse(alone.order);
      // Still more than one read takes: a partial order would be wrong, so it fails as a bad record, saying why.
      if (parsed.success && cutShort(parsed.data, ALONE_NESTING)) {
        const key = String(parsed.data.legacyResourceId);
        const n = ALONE_NESTING;
        const why =
          `order ${parsed.data.name ?? key} has ${n.lineItems} or more line items, ${n.fulfillments} or more fulfillments ` +
          `or ${n.refunds} or more refunds (or a fulfillment or refund of 30 or more lines): ` +
          'more than the store source reads of one order; sync it by hand';
        return { item: bad({ orderId: key }, why), key };
      }
    }
    if (!parsed.success)
      return { item: bad(node, `not an order of the Admin API: ${zodProblemText(parsed.error.issues, { whole: '(order)' })}`) };
    return this.recordOf(parsed.data, zone);
  }

  private async recordOf(order: StoreOrder, zone: string): Promise<Read> {
    const upstreamId = `shopify:order/${order.legacyResourceId}@${order.updatedAt}`;
    const [entry, ...rest] = await transformPayload(this.o.transform, restOrder(order, zone), upstreamId);
    const key = String(order.legacyResourceId);
    if (!entry) return { item: bad({ orderId: key }, `transform ${this.o.transform.name} made no record of the order`), key };
    if ('problem' in entry || rest.length) {
      const why = 'problem' in entry ? entry.problem : `transform ${this.o.transform.name} made ${rest.length + 1} records of one order`;
      return { item: bad({ orderId: key, shopifyOrder: order.name ?? key }, why), key };
    }
    return { item: entry.record, key, updatedAt: order.updatedAt };
  }
}

/** An order that cannot be a record, as a record that fails at once (BAD_RECORD) naming its orderId and why. */
function bad(what: unknown, reason: string): UnreadableRecord {
  const text = JSON.stringify(what) ?? String(what);
  const hash = createHash('sha256').update(`${text}\n${reason}`).digest('hex');
  return new UnreadableRecord(reason, text.slice(0, HEAD_CHARS), hash, Buffer.byteLength(text));
}
