/**
 * A sandbox Shopify store's orders as Shopify keeps them (shopify.dev: Order, LineItem, Fulfillment, Refund), and the
 * changes of an order's life: placed, edited, fulfilled in parts from its locations, cancelled, refunded with a
 * restock type. Every change stamps the order's updatedAt (whole seconds, never backwards) and is told to `onChange`
 * with the webhook topics Shopify sends for it.
 */

export type RestockType = 'RETURN' | 'CANCEL' | 'LEGACY_RESTOCK' | 'NO_RESTOCK';

export interface StoreLineItem {
  id: number;
  sku: string | null;
  title: string;
  /** As placed (or added by an edit). */
  quantity: number;
  /** Units taken off by an edit. */
  removed: number;
  price: string;
}

export interface StoreFulfillment {
  id: number;
  name: string;
  status: 'SUCCESS' | 'CANCELLED' | 'OPEN' | 'PENDING';
  createdAt: number;
  locationId: number;
  lines: Array<{ lineItemId: number; quantity: number }>;
}

export interface StoreRefund {
  id: number;
  createdAt: number;
  lines: Array<{ lineItemId: number; quantity: number; restockType: RestockType; locationId: number | null }>;
}

export interface StoreOrderState {
  id: number;
  number: number;
  createdAt: number;
  updatedAt: number;
  cancelledAt: number | null;
  retailLocationId: number | null;
  lineItems: StoreLineItem[];
  fulfillments: StoreFulfillment[];
  refunds: StoreRefund[];
  /** When its last change shows in the order search (a lagging index), and the stamp the search sorts it by till then. */
  searchAt: number;
  searchStamp: number;
}

export type StoreTopic = 'orders/create' | 'orders/updated' | 'orders/cancelled' | 'refunds/create';

export interface StoreLocation {
  id: number;
  name: string;
}

/** Where a change is told: the order after it, the topics of the webhooks Shopify sends, the refund for refunds/create. */
export type ChangeListener = (order: StoreOrderState, topics: StoreTopic[], refund?: StoreRefund) => void;

/** Units of a line item refunded (any restock type) and fulfilled (successful fulfillments). */
export function tallyOf(o: StoreOrderState, lineItemId: number) {
  const refunded = o.refunds
    .flatMap((r) => r.lines)
    .filter((l) => l.lineItemId === lineItemId)
    .reduce((a, l) => a + l.quantity, 0);
  const fulfilled = o.fulfillments
    .filter((f) => f.status === 'SUCCESS')
    .flatMap((f) => f.lines)
    .filter((l) => l.lineItemId === lineItemId)
    .reduce((a, l) => a + l.quantity, 0);
  const pending = o.fulfillments
    .filter((f) => f.status === 'OPEN' || f.status === 'PENDING')
    .flatMap((f) => f.lines)
    .filter((l) => l.lineItemId === lineItemId)
    .reduce((a, l) => a + l.quantity, 0);
  return { refunded, fulfilled, pending };
}

/** LineItem.currentQuantity: as placed, less units removed by edits and refunded. */
export function currentQuantity(o: StoreOrderState, li: StoreLineItem): number {
  return Math.max(0, li.quantity - li.removed - tallyOf(o, li.id).refunded);
}

/** LineItem.fulfillableQuantity, as Shopify defines it: quantity - max(refunded, fulfilled) - pending - open (edits too). */
export function fulfillableQuantity(o: StoreOrderState, li: StoreLineItem): number {
  const t = tallyOf(o, li.id);
  if (o.cancelledAt) return 0;
  return Math.max(0, li.quantity - li.removed - Math.max(t.refunded, t.fulfilled) - t.pending);
}

export interface PlaceOrder {
  lines: Array<{ sku: string | null; quantity: number; price: number | string; title?: string }>;
  /** A point-of-sale order's location (Order.retailLocation). */
  retailLocationId?: number;
  at?: number;
}

/** The store's orders and the ids it hands out, with the changes an order's life is made of. */
export class StoreOrders {
  readonly orders = new Map<number, StoreOrderState>();
  private nextId = 5_501_234_567;
  private nextNumber = 1001;

  constructor(
    private readonly onChange: ChangeListener,
    private readonly clock: () => number,
    /** How long a change takes to show in the order search, in ms (0: at once). */
    private readonly searchLagMs: () => number,
  ) {}

  private id(): number {
    return this.nextId++;
  }

  /** A change's stamp: `at` (or now) in whole seconds, and after the order's previous change. */
  private stamp(o: StoreOrderState | undefined, at?: number): number {
    const t = Math.floor((at ?? this.clock()) / 1000) * 1000;
    return o ? Math.max(t, o.updatedAt + 1000) : t;
  }

  private changed(o: StoreOrderState, at: number, topics: StoreTopic[], refund?: StoreRefund): StoreOrderState {
    const lag = this.searchLagMs();
    // Until the index catches up, the search still sorts the order by its previous stamp.
    if (lag > 0) o.searchStamp = o.updatedAt;
    o.updatedAt = at;
    o.searchAt = this.clock() + lag;
    if (lag <= 0) o.searchStamp = at;
    this.onChange(o, topics, refund);
    return o;
  }

  get(id: number): StoreOrderState {
    const o = this.orders.get(id);
    if (!o) throw new Error(`the sandbox store has no order ${id}`);
    return o;
  }

  place(p: PlaceOrder): StoreOrderState {
    const at = this.stamp(undefined, p.at);
    const o: StoreOrderState = {
      id: this.id(),
      number: this.nextNumber++,
      createdAt: at,
      updatedAt: at,
      cancelledAt: null,
      retailLocationId: p.retailLocationId ?? null,
      lineItems: p.lines.map((l) => this.lineItem(l)),
      fulfillments: [],
      refunds: [],
      searchAt: this.clock() + this.searchLagMs(),
      searchStamp: at,
    };
    this.orders.set(o.id, o);
    this.onChange(o, ['orders/create']);
    return o;
  }

  /** A new line item of an order, as placed or added by an edit. */
  private lineItem(l: PlaceOrder['lines'][number]): StoreOrderState['lineItems'][number] {
    return { id: this.id(), sku: l.sku, title: l.title ?? l.sku ?? 'Item', quantity: l.quantity, removed: 0, price: String(l.price) };
  }

  /** An order edit: units of a line item removed, or a line item added. */
  edit(id: number, e: { remove?: Array<{ lineItemId: number; quantity: number }>; add?: PlaceOrder['lines'] }, at?: number) {
    const o = this.get(id);
    for (const r of e.remove ?? []) {
      const li = o.lineItems.find((l) => l.id === r.lineItemId)!;
      li.removed += Math.min(r.quantity, fulfillableQuantity(o, li));
    }
    for (const l of e.add ?? []) o.lineItems.push(this.lineItem(l));
    return this.changed(o, this.stamp(o, at), ['orders/updated']);
  }

  fulfill(id: number, locationId: number, lines: Array<{ lineItemId: number; quantity: number }>, at?: number) {
    const o = this.get(id);
    const stamp = this.stamp(o, at);
    const n = o.fulfillments.length + 1;
    o.fulfillments.push({ id: this.id(), name: `#${o.number}.${n}`, status: 'SUCCESS', createdAt: stamp, locationId, lines });
    return this.changed(o, stamp, ['orders/updated']);
  }

  cancel(id: number, at?: number) {
    const o = this.get(id);
    const stamp = this.stamp(o, at);
    o.cancelledAt = stamp;
    return this.changed(o, stamp, ['orders/cancelled', 'orders/updated']);
  }

  refund(id: number, lines: StoreRefund['lines'], at?: number) {
    const o = this.get(id);
    const stamp = this.stamp(o, at);
    const refund: StoreRefund = { id: this.id(), createdAt: stamp, lines };
    o.refunds.push(refund);
    return this.changed(o, stamp, ['refunds/create', 'orders/updated'], refund);
  }
}
