import type { CallOptions, ServiceApi } from '../client/service-api.js';
import { readStockOnHand, type StockOnHand } from '../catalog/stock-on-hand.js';
import { numberOf, textOf } from '../client/cells.js';
import type { Product } from '../client/schemas.js';

export interface OrderRow {
  orderId?: string;
  orderUrl?: string;
  statusId?: string;
  originFacilityUrl?: string;
  orderItemListTotal?: number;
}

export interface ShipmentRow {
  shipmentId?: string;
  shipmentIdUser?: string;
  shipmentUrl?: string;
  primaryOrderUrl?: string;
  statusId?: string;
}

/**
 * The service as reconcile reads it: each collection at most once per run (collection GETs are the scarcest budget,
 * about 300 an hour), entities one GET each; every call through the client's shared budget, and counted.
 */
export class ServiceView {
  readonly calls = { get: 0, collection: 0 };
  private readonly cache = new Map<string, Promise<unknown>>();
  private readonly opts: CallOptions = {
    onCall: (c) => {
      if (c.cls === 'collection') this.calls.collection++;
      else if (c.cls === 'get') this.calls.get++;
    },
  };

  constructor(private readonly client: ServiceApi) {}

  /**
   * What `read` answers, read once per run under `name` (a collection's name for a collection): how a kind's rule reads
   * what the view has no call for, through the client's budget and counted.
   */
  read<T>(name: string, read: (client: ServiceApi, opts: CallOptions) => Promise<T>): Promise<T> {
    return this.once(name, () => read(this.client, this.opts));
  }

  private once<T>(name: string, read: () => Promise<T>): Promise<T> {
    let hit = this.cache.get(name) as Promise<T> | undefined;
    if (!hit) {
      hit = read();
      this.cache.set(name, hit);
    }
    return hit;
  }

  orders(): Promise<OrderRow[]> {
    return this.once('order', async () =>
      (await this.client.listCollection('order', this.opts)).map((r) => ({
        orderId: textOf(r.orderId),
        orderUrl: textOf(r.orderUrl),
        statusId: textOf(r.statusId),
        originFacilityUrl: textOf(r.originFacilityUrl),
        orderItemListTotal: numberOf(r.orderItemListTotal),
      })),
    );
  }

  shipments(): Promise<ShipmentRow[]> {
    return this.once('shipment', async () =>
      (await this.client.listCollection('shipment', this.opts)).map((r) => ({
        shipmentId: textOf(r.shipmentId),
        shipmentIdUser: textOf(r.shipmentIdUser),
        shipmentUrl: textOf(r.shipmentUrl),
        primaryOrderUrl: textOf(r.primaryOrderUrl),
        statusId: textOf(r.statusId),
      })),
    );
  }

  stock(): Promise<StockOnHand> {
    return this.once('inventoryitem', () => readStockOnHand(this.client, this.opts));
  }

  order(path: string) {
    return this.client.getOrder(path, this.opts);
  }

  product(path: string): Promise<Product> {
    return this.client.getProduct(path, this.opts);
  }
}
