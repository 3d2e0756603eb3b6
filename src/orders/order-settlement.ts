import { NotFoundError } from '../client/errors.js';
import type { Order, Shipment } from '../client/schemas.js';
import type { JobContext } from '../queue/job-kind.js';
import { compareOrder, compareShipment } from './order-compare.js';
import { completedOrderChanged, orderConflict } from './order-errors.js';
import type { OrderPlan } from './order-plan.js';
import type { OrderProgress, Pending, ProgressStore, Step } from './order-progress.js';

export const ORDER_COMPLETED = 'ORDER_COMPLETED';
export const SHIPMENT_SHIPPED = 'SHIPMENT_SHIPPED';
const NEXT: Record<Step, Pending | undefined> = {
  none: 'create-order',
  created: 'create-shipment',
  'shipment-created': 'ship',
  shipped: 'complete',
  completed: undefined,
};

/**
 * An order's progress and how it is settled against the service: what surely happened is recorded with the
 * next write's intent, and an uncertain write is settled with one read (see docs/orders.md).
 */
export abstract class OrderSettlement {
  /** Steps this attempt applied to the service (for the summary; empty means nothing changed). */
  protected readonly applied: string[] = [];

  constructor(
    protected readonly plan: OrderPlan,
    protected readonly ctx: JobContext,
    private readonly store: ProgressStore,
    protected progress: OrderProgress,
  ) {}

  /** Records what surely happened and, in the same write, the intent of the next write. */
  protected async advance(step: Step, fields: Partial<OrderProgress> = {}): Promise<void> {
    const pending = NEXT[step];
    this.progress = { ...this.progress, ...fields, step, pending, recordHash: this.plan.recordHash };
    await this.store.save({ ...fields, step, pending, recordHash: this.plan.recordHash });
  }

  protected async intend(pending: Pending): Promise<void> {
    if (this.progress.pending === pending) return;
    this.progress = { ...this.progress, pending };
    await this.store.save({ pending, recordHash: this.plan.recordHash }, pending === 'create-order');
  }

  protected async clearPending(): Promise<void> {
    if (!this.progress.pending) return;
    this.progress = { ...this.progress, pending: undefined };
    await this.store.save({ pending: undefined });
  }

  protected orderPath(): string {
    return this.progress.orderUrl ?? this.ctx.client.entityPath('order', this.plan.orderId);
  }

  protected shipmentPath(): string {
    return this.progress.shipmentUrl ?? this.ctx.client.entityPath('shipment', this.plan.shipmentId);
  }

  protected async readOrder(): Promise<Order | undefined> {
    try {
      return await this.ctx.client.getOrder(this.orderPath());
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  protected async readShipment(): Promise<Shipment | undefined> {
    try {
      return await this.ctx.client.getShipment(this.shipmentPath());
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  /** Fails when the order differs from the record; records it as created or completed when it matches. */
  protected async adoptOrder(order: Order): Promise<void> {
    const diffs = compareOrder(order, this.plan);
    if (diffs.length) {
      throw order.statusId === ORDER_COMPLETED ? completedOrderChanged(this.plan.orderId, diffs) : orderConflict(this.plan.orderId, 'order', diffs);
    }
    const fields = { orderUrl: order.orderUrl, actionUrlComplete: order.actionUrlComplete ?? `${order.orderUrl}/complete` };
    await this.advance(order.statusId === ORDER_COMPLETED ? 'completed' : 'created', fields);
  }

  /** Fails when the shipment differs from the record; records it as created or shipped when it matches. */
  protected async adoptShipment(shipment: Shipment, orderCompleted = false): Promise<void> {
    const diffs = compareShipment(shipment, this.plan, this.orderPath());
    if (diffs.length) {
      throw orderCompleted ? completedOrderChanged(this.plan.orderId, diffs) : orderConflict(this.plan.orderId, 'shipment', diffs);
    }
    if (orderCompleted) return;
    await this.advance(shipment.statusId === SHIPMENT_SHIPPED ? 'shipped' : 'shipment-created', { shipmentUrl: shipment.shipmentUrl });
  }

  /** A corrected record for an order already (partly) synced: compare it with the service, then resume. */
  protected async reconcile(): Promise<void> {
    this.ctx.note('record differs from the one synced before; reading the order and shipment back to compare');
    const order = await this.readOrder();
    if (!order) {
      this.ctx.note('order not found in the service; starting over');
      this.progress = { step: 'none', recordHash: this.plan.recordHash };
      await this.store.save({ step: undefined, pending: undefined, orderUrl: undefined, actionUrlComplete: undefined, shipmentUrl: undefined, recordHash: this.plan.recordHash });
      return;
    }
    const completed = order.statusId === ORDER_COMPLETED;
    const shipment = await this.readShipment();
    // Compare both before recording anything, so a change to a completed order is refused whole.
    const orderDiffs = compareOrder(order, this.plan);
    const shipmentDiffs = shipment ? compareShipment(shipment, this.plan, order.orderUrl) : [];
    const diffs = [...orderDiffs, ...shipmentDiffs];
    if (diffs.length) {
      if (completed) throw completedOrderChanged(this.plan.orderId, diffs);
      throw orderConflict(this.plan.orderId, orderDiffs.length ? 'order' : 'shipment', diffs);
    }
    await this.adoptOrder(order);
    if (shipment && !completed) await this.adoptShipment(shipment);
  }

  /** A write of an earlier attempt may have happened (crash, lost answer): read once to know. */
  protected async settlePending(pending: Pending): Promise<boolean> {
    this.ctx.note(`outcome of "${pending}" is uncertain; reading the service to settle it`);
    let done = false;
    if (pending === 'create-order') {
      const order = await this.readOrder();
      if (order) await this.adoptOrder(order);
      done = !!order;
    } else if (pending === 'create-shipment') {
      const shipment = await this.readShipment();
      if (shipment) await this.adoptShipment(shipment);
      done = !!shipment;
    } else if (pending === 'ship') {
      const shipment = await this.readShipment();
      done = shipment?.statusId === SHIPMENT_SHIPPED;
      if (done) await this.advance('shipped');
    } else {
      const order = await this.readOrder();
      done = order?.statusId === ORDER_COMPLETED;
      if (done) await this.advance('completed');
    }
    this.ctx.note(done ? `"${pending}" had been applied; carrying on` : `"${pending}" had not been applied; it will be sent again`);
    if (!done) await this.clearPending();
    return done;
  }
}
