import { isServiceError, type ServiceError } from '../../src/client/answers/errors.js';
import type { CreatedOrder, CreatedShipment, Shipment } from '../../src/client/answers/schemas.js';
import type { JobContext, JobResult } from '../../src/queue/job-context.js';
import { PermanentJobError } from '../../src/queue/job-errors.js';
import { READ_BACK, REFUSED, serviceRefused } from './order-errors.js';
import type { OrderPlan } from './order-plan.js';
import type { OrderProgress, Pending, ProgressStore } from './order-progress.js';
import { OrderSettlement, ORDER_COMPLETED, SHIPMENT_SHIPPED } from './order-settlement.js';

/** A write whose answer was lost or unusable: it may have been applied. */
function uncertain(err: ServiceError): boolean {
  return err.outcome !== 'not-applied';
}

/**
 * One attempt at syncing one order: resumes from its progress, settles any uncertain write with one read,
 * then runs the remaining steps (create order, create shipment, ship, complete). Happy path: 4 POSTs, 0 GETs.
 */
export class OrderRun {
  /** Steps this attempt applied to the service (for the summary; empty means nothing changed). */
  private readonly applied: string[] = [];
  private readonly settlement: OrderSettlement;

  constructor(
    private readonly plan: OrderPlan,
    private readonly ctx: JobContext,
    store: ProgressStore,
    progress: OrderProgress,
  ) {
    this.settlement = new OrderSettlement(plan, ctx, store, progress);
  }

  private get progress(): OrderProgress {
    return this.settlement.progress;
  }

  async run(): Promise<JobResult> {
    if (this.ctx.fromService) await this.settlement.fromService();
    else await this.settlement.settleFirst();
    while (this.progress.step !== 'completed') {
      if (this.progress.step === 'none') await this.createOrder();
      else if (this.progress.step === 'created') await this.createShipment();
      else if (this.progress.step === 'shipment-created') await this.ship();
      else await this.complete();
    }
    const id = this.plan.orderId;
    const details = { orderUrl: this.progress.orderUrl, shipmentUrl: this.progress.shipmentUrl, applied: this.applied };
    if (!this.applied.length)
      return { outcome: 'unchanged', summary: `order ${id} was already synced (completed in the service)`, details };
    return { outcome: 'synced', summary: `order ${id}: ${this.applied.join(', ')}`, details };
  }

  /** Common handling of a failed write: settle uncertain ones by a read, refuse the rest or retry later. */
  private async failed(step: Pending, err: unknown, action: string): Promise<void> {
    if (isServiceError(err) && uncertain(err)) {
      this.ctx.note(`answer to "${step}" lost or unusable (${err.code}); reading back`);
      if (await this.settlement.settlePending(step)) {
        this.applied.push(`${action} (answer lost, confirmed by a read)`);
        return;
      }
      throw err;
    }
    if (!isServiceError(err)) throw err;
    // Surely not applied: the next try acts without a read first.
    await this.settlement.clearPending();
    throw REFUSED.has(err.code) ? serviceRefused(this.plan.orderId, action, err) : err;
  }

  // ---- steps ----

  private async createOrder(): Promise<void> {
    await this.settlement.intend('create-order');
    let order: CreatedOrder;
    // Another worker may have the job once this one lost its lock: stop before writing.
    this.ctx.lock?.assertHeld();
    try {
      order = await this.ctx.client.createOrder(this.plan.order);
    } catch (err) {
      if (isServiceError(err) && READ_BACK.has(err.code)) return this.readBack('create-order', err);
      return this.failed('create-order', err, 'created the order');
    }
    this.applied.push('created the order');
    // A new order has no shipment yet: nothing to look for before creating one.
    await this.settlement.advance('created', {
      orderUrl: order.orderUrl,
      actionUrlComplete: order.actionUrlComplete ?? `${order.orderUrl}/complete`,
    });
  }

  private async createShipment(): Promise<void> {
    await this.settlement.intend('create-shipment');
    const body = { ...this.plan.shipment, primaryOrderUrl: this.settlement.orderPath() };
    let shipment: CreatedShipment;
    // Another worker may have the job once this one lost its lock: stop before writing.
    this.ctx.lock?.assertHeld();
    try {
      shipment = await this.ctx.client.createShipment(body);
    } catch (err) {
      if (isServiceError(err) && READ_BACK.has(err.code)) return this.readBack('create-shipment', err);
      return this.failed('create-shipment', err, 'created the shipment');
    }
    this.applied.push('created the shipment');
    await this.settlement.advance(shipment.statusId === SHIPMENT_SHIPPED ? 'shipped' : 'shipment-created', {
      shipmentUrl: shipment.shipmentUrl,
    });
  }

  /**
   * A create refused as a duplicate, an integrity violation or a completed order: the order (and its shipment)
   * may exist already, so what the service has is read and adopted (or refused when it differs).
   */
  private async readBack(step: 'create-order' | 'create-shipment', err: ServiceError): Promise<void> {
    const what = step === 'create-order' ? 'order' : 'shipment';
    this.ctx.note(`create ${what} answered ${err.code}; reading the order back`, { msg: err.msg });
    const order = await this.settlement.readOrder();
    if (order) await this.settlement.adoptOrder(order);
    const before = step === 'create-order' ? 'none' : 'created';
    if (order && this.progress.step !== before) return;
    await this.settlement.clearPending();
    throw serviceRefused(this.plan.orderId, `create the ${what} (the service has no such ${what} to read back)`, err);
  }

  private async ship(): Promise<void> {
    const path = this.progress.shipmentUrl;
    // Progress without the shipment's URL (written by an older version): the order's shipment list says.
    if (!path) return void (await this.settlement.settlePending('ship'));
    await this.settlement.intend('ship');
    let shipment: Shipment;
    // Another worker may have the job once this one lost its lock: stop before writing.
    this.ctx.lock?.assertHeld();
    try {
      shipment = await this.ctx.client.modifyShipment(path, { statusId: SHIPMENT_SHIPPED });
    } catch (err) {
      if (isServiceError(err) && !uncertain(err) && REFUSED.has(err.code) && (await this.settlement.settlePending('ship'))) return;
      return this.failed('ship', err, 'shipped the shipment');
    }
    if (shipment.statusId === undefined) {
      // Applied, but the answer does not say the status: one read settles it.
      this.ctx.note('ship answered without a statusId; reading the shipment');
      if (await this.settlement.settlePending('ship')) return void this.applied.push('shipped the shipment (confirmed by a read)');
    }
    if (shipment.statusId !== SHIPMENT_SHIPPED) {
      throw new PermanentJobError(
        'SERVICE_REFUSED',
        `order ${this.plan.orderId}: shipping answered status ${shipment.statusId ?? 'none'}, not ${SHIPMENT_SHIPPED}`,
        'Check the shipment in the service, then retry the job.',
        { path },
      );
    }
    this.applied.push('shipped the shipment');
    await this.settlement.advance('shipped');
  }

  private async complete(): Promise<void> {
    if (this.settlement.completedInService) {
      this.ctx.note('the order is completed in the service already; nothing to complete');
      return this.settlement.advance('completed');
    }
    await this.settlement.intend('complete');
    const actionUrl = this.progress.actionUrlComplete ?? `${this.settlement.orderPath()}/complete`;
    // Another worker may have the job once this one lost its lock: stop before writing.
    this.ctx.lock?.assertHeld();
    try {
      await this.ctx.client.completeOrder(actionUrl);
    } catch (err) {
      // A 400 or 403 saying the order is completed (or cancelled): one read tells which.
      if (isServiceError(err) && err.code === 'ORDER_COMPLETED' && (await this.settlement.settlePending('complete'))) return;
      return this.failed('complete', err, 'completed the order');
    }
    this.applied.push('completed the order');
    await this.settlement.advance('completed');
  }
}
