import { Inventory } from './inventory.js';
import { syncReservations } from './reservations.js';
import { idNumber } from './sandbox-data.js';
import type {
  FacilityEntity,
  OrderEntity,
  ProductAssoc,
  ProductEntity,
  SandboxState,
  ShipmentEntity,
  StatusHistoryEntry,
  VarianceEntity,
} from './sandbox-entities.js';

/** The account's entities in memory, indexed by id, with the sequences the service assigns. */
export class SandboxStore {
  readonly account: string;
  /** `/{account}/api` */
  readonly api: string;
  readonly facilities = new Map<string, FacilityEntity>();
  readonly products = new Map<string, ProductEntity>();
  readonly assocs = new Map<string, { product: ProductEntity; assoc: ProductAssoc }>();
  readonly orders = new Map<string, OrderEntity>();
  readonly orderHistory = new Map<string, StatusHistoryEntry[]>();
  readonly shipments = new Map<string, ShipmentEntity>();
  readonly variances = new Map<string, VarianceEntity>();
  readonly inventory: Inventory;
  /** Serialized collection answers, dropped on every write. */
  readonly cache = new Map<string, string>();
  private seq = { shipment: 10000, variance: 10000, assoc: 10000 };

  /** `firstShipmentId`: where the shipment sequence starts (the profile's; default 10000). */
  constructor(state: SandboxState, firstShipmentId = 10000) {
    this.seq.shipment = firstShipmentId;
    this.account = state.account;
    this.api = `/${state.account}/api`;
    for (const f of state.facilities) this.facilities.set(this.idOf(f.facilityUrl, 'facility') ?? f.facilityId, f);
    for (const p of state.products) {
      this.products.set(this.idOf(p.productUrl, 'product') ?? p.productId, p);
      for (const a of p.productAssocList) this.indexAssoc(p, a);
    }
    for (const o of state.orders) {
      const { statusIdHistoryList, ...order } = o;
      this.orders.set(o.orderId, order);
      this.orderHistory.set(o.orderId, statusIdHistoryList ?? []);
    }
    for (const s of state.shipments) {
      this.shipments.set(s.shipmentId, s);
      this.seq.shipment = Math.max(this.seq.shipment, numeric(s.shipmentId) + 1);
    }
    for (const v of state.variances) {
      this.variances.set(v.physicalInventoryId, v);
      this.seq.variance = Math.max(this.seq.variance, numeric(v.physicalInventoryId) + 1);
    }
    this.inventory = new Inventory(state.inventory, this.api);
    // Reservations follow from the orders (locked ones), so a state dump does not hold them.
    for (const o of this.orders.values()) syncReservations(this, o);
  }

  /** The decoded id of a URL of this account's collection, or undefined. */
  idOf(url: string, collection: string): string | undefined {
    const prefix = `${this.api}/${collection}/`;
    if (typeof url !== 'string' || !url.startsWith(prefix)) return undefined;
    const rest = url.slice(prefix.length);
    if (!rest || rest.includes('/')) return undefined;
    try {
      return decodeURIComponent(rest);
    } catch {
      return undefined;
    }
  }

  url(collection: string, id: string): string {
    return `${this.api}/${collection}/${encodeURIComponent(id)}`;
  }

  facilityByUrl(url: string): FacilityEntity | undefined {
    const id = this.idOf(url, 'facility');
    return id === undefined ? undefined : this.facilities.get(id);
  }

  productByUrl(url: string): ProductEntity | undefined {
    const id = this.idOf(url, 'product');
    return id === undefined ? undefined : this.products.get(id);
  }

  orderByUrl(url: string): OrderEntity | undefined {
    const id = this.idOf(url, 'order');
    return id === undefined ? undefined : this.orders.get(id);
  }

  nextShipmentId(): string {
    let id = String(this.seq.shipment++);
    while (this.shipments.has(id)) id = String(this.seq.shipment++);
    return id;
  }

  nextVarianceId(): string {
    return String(this.seq.variance++);
  }

  newAssoc(product: ProductEntity, productAssocTypeId: string): ProductAssoc {
    let url = `${this.api}/productassoc/${this.seq.assoc++}`;
    while (this.assocs.has(url)) url = `${this.api}/productassoc/${this.seq.assoc++}`;
    const assoc: ProductAssoc = { productAssocTypeId, productAssocUrl: url, productAssocItemList: [] };
    product.productAssocList.push(assoc);
    this.indexAssoc(product, assoc);
    return assoc;
  }

  /** Every write calls this: collection answers are rebuilt on the next GET. */
  touch(): void {
    this.cache.clear();
  }

  /** A deep copy of everything, as plain JSON. */
  dump(): SandboxState {
    return structuredClone({
      account: this.account,
      facilities: [...this.facilities.values()],
      products: [...this.products.values()],
      orders: [...this.orders.values()].map((o) => ({ ...o, statusIdHistoryList: this.orderHistory.get(o.orderId) ?? [] })),
      shipments: [...this.shipments.values()],
      variances: [...this.variances.values()],
      inventory: this.inventory.rows,
    });
  }

  private indexAssoc(product: ProductEntity, assoc: ProductAssoc): void {
    this.assocs.set(assoc.productAssocUrl, { product, assoc });
    this.seq.assoc = Math.max(this.seq.assoc, idNumber(assoc.productAssocUrl) + 1);
  }
}

/** A purely numeric id as a number, else 0 (client-chosen ids do not move the sequence). */
function numeric(id: string): number {
  return /^\d{1,15}$/.test(id) ? Number(id) : 0;
}
