import { NotFoundError } from '../../src/client/answers/errors.js';
import type { ReadOrder, ReadShipment } from '../../src/client/answers/schemas.js';
import type { JobContext } from '../../src/queue/job-context.js';
import { findShipment, severalShipments, type ShipmentSearch } from './find-shipment.js';
import { compareOrder } from './order-compare.js';
import { completedOrderChanged, orderConflict } from './order-errors.js';
import { ConflictError } from '../../src/queue/job-errors.js';
import type { OrderPlan } from './order-plan.js';
import { stepIndex, type OrderProgress, type Pending, type ProgressStore, type Step } from './order-progress.js';

export const ORDER_COMPLETED = 'ORDER_COMPLETED';
export const SHIPMENT_SHIPPED = 'SHIPMENT_SHIPPED';
const NEXT: Record<Step, Pending | undefined> = {
  none: 'create-order',
  created: 'create-shipment',
  'shipment-created': 'ship',
  shipped: 'complete',
  completed: undefined,
};
/** The step a write starts from: once the service shows a later one, the write had been applied. */
const BEFORE: Record<Pending, Step> = {
  'create-order': 'none',
  'create-shipment': 'created',
  ship: 'shipment-created',
  complete: 'shipped',
};

/**
 * An order's progress and how it is settled against the service, for the run (order-run.ts): what surely happened is recorded with the
 * next write's intent, and an uncertain write is settled with one read (see docs/orders.md).
 */
export class OrderSettlement {
  constructor(
    private readonly plan: OrderPlan,
    private readonly ctx: JobContext,
    private readonly store: ProgressStore,
    /** What surely happened, as last recorded. */
    public progress: OrderProgress,
  ) {}

  /** Records what surely happened and, in the same write, the intent of the next write. */
  async advance(step: Step, fields: Partial<OrderProgress> = {}): Promise<void> {
    const pending = NEXT[step];
    this.progress = { ...this.progress, ...fields, step, pending, recordHash: this.plan.recordHash };
    await this.store.save({ ...fields, step, pending, recordHash: this.plan.recordHash });
  }

  async intend(pending: Pending): Promise<void> {
    if (this.progress.pending === pending) return;
    this.progress = { ...this.progress, pending };
    await this.store.save({ pending, recordHash: this.plan.recordHash }, pending === 'create-order');
  }

  async clearPending(): Promise<void> {
    if (!this.progress.pending) return;
    this.progress = { ...this.progress, pending: undefined };
    await this.store.save({ pending: undefined });
  }

  orderPath(): string {
    return this.progress.orderUrl ?? this.ctx.client.entityPath('order', this.plan.orderId);
  }

  async readOrder(): Promise<ReadOrder | undefined> {
    try {
      return await this.ctx.client.getOrder(this.orderPath());
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  /**
   * Records what the service has of the order: fails when the order or its shipment differs from the record;
   * otherwise the step is what the service shows (completed, shipped, shipment created, or created). The
   * shipment is looked for in the order's shipmentUrlList (one GET per listed shipment, none when it lists
   * none), so an order this attempt did not create itself never gets a second shipment.
   */
  async adoptOrder(order: ReadOrder, search?: ShipmentSearch): Promise<void> {
    const found = search ?? (await findShipment(this.ctx.client, order, this.plan));
    if (found.kind === 'several') throw severalShipments(this.plan.orderId, order.orderUrl, found.urls);
    const completed = order.statusId === ORDER_COMPLETED;
    // Both compared before anything is recorded, so a change to a completed order is refused whole.
    const orderDiffs = compareOrder(order, this.plan);
    const diffs = [...orderDiffs, ...(found.kind === 'differs' ? found.diffs : [])];
    if (diffs.length) {
      if (completed) throw completedOrderChanged(this.plan.orderId, diffs);
      throw orderConflict(this.plan.orderId, orderDiffs.length ? 'order' : 'shipment', diffs);
    }
    const fields: Partial<OrderProgress> = {
      orderUrl: order.orderUrl,
      actionUrlComplete: order.actionUrlComplete ?? `${order.orderUrl}/complete`,
    };
    if (completed) return this.advance('completed', found.kind === 'found' ? { ...fields, shipmentUrl: found.url } : fields);
    if (found.kind !== 'found') return this.advance('created', fields);
    await this.advance(found.shipment.statusId === SHIPMENT_SHIPPED ? 'shipped' : 'shipment-created', {
      ...fields,
      shipmentUrl: found.url,
    });
  }

  /** Set by fromService: the order is completed in the service while its shipment is not shipped (ship only). */
  completedInService = false;

  /**
   * A resync or repair: what the service has of the order and its shipment decides the step, whatever the
   * progress says (read, then write only what is missing). A completed order whose shipment is not shipped gets
   * the shipment shipped only; a completed order without a shipment cannot get one through the API.
   */
  async fromService(): Promise<void> {
    this.ctx.note('resync: reading the order and its shipment from the service to plan from them');
    const order = await this.readOrder();
    if (!order) return this.startOver();
    const found = await findShipment(this.ctx.client, order, this.plan);
    await this.adoptOrder(order, found);
    if (this.progress.step !== 'completed') return;
    if (found.kind === 'found' && found.shipment.statusId !== SHIPMENT_SHIPPED) {
      this.completedInService = true;
      await this.advance('shipment-created', { shipmentUrl: found.url });
    } else if (found.kind === 'none') {
      throw new ConflictError(
        `order ${this.plan.orderId}: the order ${order.orderUrl} is completed in the service and has no live shipment; ` +
          'a completed order takes no new shipment',
        'Make the order editable again in the web application, then run inventory-sync reconcile --repair again.',
        { orderId: this.plan.orderId, orderUrl: order.orderUrl },
      );
    }
  }

  private async startOver(): Promise<void> {
    this.ctx.note('order not found in the service; starting over');
    this.progress = { step: 'none', recordHash: this.plan.recordHash };
    await this.store.save({
      step: undefined,
      pending: undefined,
      orderUrl: undefined,
      actionUrlComplete: undefined,
      shipmentUrl: undefined,
      recordHash: this.plan.recordHash,
    });
  }

  /** A corrected record for an order already (partly) synced: compare it with the service, then resume. */
  async reconcile(): Promise<void> {
    this.ctx.note('record differs from the one synced before; reading the order and its shipment back to compare');
    const order = await this.readOrder();
    if (!order) return this.startOver();
    await this.adoptOrder(order);
  }

  /**
   * Before the steps: a corrected record is compared with the service, an uncertain write settled, and an order
   * created without a known shipment read (the run, and the dry run's preview, start with this).
   */
  async settleFirst(): Promise<void> {
    const p = this.progress;
    if (p.step !== 'none' && p.recordHash !== this.plan.recordHash) await this.reconcile();
    else if (p.pending) await this.settlePending(p.pending);
    // Created in an earlier attempt, nothing pending: the progress cannot rule out a shipment (a Redis restored
    // from an older state, an answer that landed late), and the service may not refuse a second one when it
    // ignores our shipmentId. One read of the order says.
    else if (p.step === 'created') await this.settlePending('create-shipment');
  }

  /** A write of an earlier attempt may have happened (crash, lost answer): read to know. */
  settlePending(pending: Pending): Promise<boolean> {
    return this.ctx.settling(pending, () => this.settle(pending));
  }

  private async settle(pending: Pending): Promise<boolean> {
    this.ctx.note(`outcome of "${pending}" is uncertain; reading the service to settle it`);
    let done = false;
    if (pending === 'ship' && this.progress.shipmentUrl) {
      const shipment = await this.readShipment(this.progress.shipmentUrl);
      done = shipment?.statusId === SHIPMENT_SHIPPED;
      if (done) await this.advance('shipped');
    } else if (pending === 'complete') {
      const order = await this.readOrder();
      done = order?.statusId === ORDER_COMPLETED;
      if (done) await this.advance('completed');
    } else {
      // create-order, create-shipment (and ship without a known shipment URL): what the order shows settles it.
      const order = await this.readOrder();
      if (order) await this.adoptOrder(order);
      done = !!order && stepIndex(this.progress.step) > stepIndex(BEFORE[pending]);
    }
    this.ctx.note(done ? `"${pending}" had been applied; carrying on` : `"${pending}" had not been applied; it will be sent again`);
    if (!done) await this.clearPending();
    return done;
  }

  private async readShipment(url: string): Promise<ReadShipment | undefined> {
    try {
      return await this.ctx.client.getShipment(url);
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }
}
