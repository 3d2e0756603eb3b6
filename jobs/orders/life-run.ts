import { isServiceError } from '../../src/client/answers/errors.js';
import { PermanentJobError } from '../../src/queue/job-errors.js';
import type { Order } from '../../src/client/answers/schemas.js';
import { localDateTime } from '../../src/time/date-format.js';
import type { JobContext, JobResult } from '../../src/queue/job-context.js';
import { findLostVariance } from '../stock/settle-variance.js';
import { READ_BACK, REFUSED, serviceRefused } from './order-errors.js';
import { nextLifeStep, type LifeNext, type LifeWriteStep } from './life-next.js';
import type { LifePlan } from './life-plan.js';
import { applyWrite, isOlder, type LifeProgress, type LifeStore, type LifeWrite } from './life-progress.js';
import { actionsOf, adoptService, readServiceOrder, statusOf } from './life-read.js';

const SHIPMENT_SHIPPED = 'SHIPMENT_SHIPPED';
const WHAT: Record<LifeWriteStep['kind'], string> = {
  'create-order': 'created the order',
  lock: 'committed the order',
  edit: 'made the order editable',
  items: "changed the order's lines",
  shipment: 'created shipment',
  ship: 'shipped',
  return: 'restocked return',
  complete: 'completed the order',
  cancel: 'cancelled the order',
};

/** The same, as what was asked (in a refusal: "the service refused to ..."). */
const DO: Record<LifeWriteStep['kind'], string> = {
  'create-order': 'create the order',
  lock: 'commit the order',
  edit: 'make the order editable',
  items: "change the order's lines",
  shipment: 'create shipment',
  ship: 'ship',
  return: 'restock return',
  complete: 'complete the order',
  cancel: 'cancel the order',
};

const nameOf = (step: LifeWriteStep) => ('part' in step ? ` ${step.part.id}` : 'ret' in step ? ` ${step.ret.id}` : '');

function said(step: LifeWriteStep): string {
  if ('part' in step) return `${WHAT[step.kind]} ${step.part.id}`;
  if ('ret' in step)
    return `${WHAT[step.kind]} ${step.ret.id}${step.ret.variances.length > 1 ? ` (${step.index + 1}/${step.ret.variances.length})` : ''}`;
  return WHAT[step.kind];
}

/**
 * One attempt at bringing the service to an order's snapshot (docs/orders.md "The order's life"): the next write is
 * chosen from what the progress knows (life-next.ts), its intent recorded with the previous write's outcome, and any
 * write whose outcome is uncertain settled by reading the order and its shipments back.
 */
export class LifeRun {
  private readonly applied: string[] = [];
  /** The service was read in this attempt (a cancel is decided on a fresh read). */
  private fresh = false;

  constructor(
    private readonly plan: LifePlan,
    private readonly ctx: JobContext,
    private readonly store: LifeStore,
    private p: LifeProgress,
  ) {}

  async run(): Promise<JobResult> {
    const { plan, ctx } = this;
    // A return notice tells only returns, each once whenever it comes: it is never older, nor makes others so.
    const ordered = !plan.notice && plan.updatedAt;
    if (ordered && this.p.seenAt && isOlder(ordered, this.p.seenAt)) return this.older();
    if (this.p.pending || (this.p.exists && !this.p.life) || ctx.fromService || (!this.p.exists && plan.status === 'cancelled'))
      await this.refresh(this.p.pending ? `"${this.p.pending}" was sent without a recorded outcome` : 'the progress does not say');
    if (ordered && (!this.p.seenAt || isOlder(this.p.seenAt, ordered))) await this.save({ seenAt: ordered });
    let why: string | undefined;
    for (let guard = 0; ; guard++) {
      const next = nextLifeStep(plan, this.p);
      if (next.kind === 'refuse') throw next.error;
      if (next.kind === 'done') {
        why = next.why;
        break;
      }
      if (guard > 50 + plan.parts.length * 3 + plan.returns.length * 3)
        throw new Error(`order ${plan.orderId}: no end to its steps (${next.pending})`);
      if (next.step.kind === 'cancel' && !this.fresh) {
        await this.refresh('a cancel is decided on what the service has now');
        continue;
      }
      await this.write(next);
    }
    await this.save({ recordHash: plan.recordHash, ...(this.p.pending ? { pending: '' } : {}) });
    return this.result(why);
  }

  private older(): JobResult {
    return {
      outcome: 'skipped',
      why: 'an older snapshot than one already applied',
      summary:
        `order ${this.plan.orderId}: snapshot of ${this.plan.updatedAt} is older than the one of ${this.p.seenAt} ` +
        'already seen; nothing changed',
      details: { skipped: 'older', updatedAt: this.plan.updatedAt, seenAt: this.p.seenAt, orderUrl: this.p.orderUrl, applied: [] },
    };
  }

  private result(why?: string): JobResult {
    const details = {
      orderUrl: this.p.orderUrl,
      status: this.p.status ?? 'not created',
      shipmentUrls: [...this.p.parts.values()].map((x) => x.url),
      applied: this.applied,
      ...(this.plan.updatedAt ? { updatedAt: this.plan.updatedAt } : {}),
    };
    const id = this.plan.orderId;
    if (this.applied.length) return { outcome: 'synced', summary: `order ${id}: ${this.applied.join(', ')}`, details };
    if (why) return { outcome: 'skipped', summary: `order ${id}: ${why}`, why, details };
    return { outcome: 'unchanged', summary: `order ${id}: the service already matches the snapshot`, details };
  }

  private async save(w: LifeWrite): Promise<void> {
    this.p = applyWrite(this.p, w);
    await this.store.save(w);
  }

  private orderPath(): string {
    return this.p.orderUrl ?? this.ctx.client.entityPath('order', this.plan.orderId);
  }

  /** Reads the order and its shipments, and takes them as what is known; a pending return is settled by its own read. */
  private async refresh(why: string): Promise<void> {
    const { ctx, plan } = this;
    ctx.note(`reading the order back: ${why}`);
    const pending = this.p.pending;
    const seen = await ctx.settling(pending ?? 'read', () => readServiceOrder(ctx, plan, this.orderPath()));
    this.fresh = true;
    const w = adoptService(plan, this.p, seen);
    if (pending?.startsWith('return:')) await this.settleReturn(pending.slice('return:'.length, pending.lastIndexOf(':')), w);
    await this.save(w);
  }

  /** A return's variance whose answer was not recorded: the service's variances at its place and day say. */
  private async settleReturn(id: string, w: LifeWrite): Promise<void> {
    const ret = this.plan.returns.find((r) => r.id === id);
    const known = this.p.returns.get(id);
    if (!ret || !known?.day) return;
    const v = ret.variances[known.urls.length];
    if (!v) return;
    const lines = v.lines.map(([url, q]) => [url, q] as [string, number]);
    const url = await findLostVariance(this.ctx.client, {
      facilityUrl: v.facilityUrl,
      countDate: known.day,
      lines,
      known: new Set([...this.p.returns.values()].flatMap((r) => r.urls).filter(Boolean)),
    });
    this.ctx.note(
      url === undefined ? `return ${id}: not in the service; it will be sent again` : `return ${id}: the service has it; not sent again`,
    );
    if (url !== undefined) w.returns = new Map([[id, { ...known, urls: [...known.urls, url] }]]);
  }

  private async write(next: Extract<LifeNext, { kind: 'write' }>): Promise<void> {
    const { step } = next;
    // The write before may have set the marker already: a return's day is kept either way, so that a lost answer
    // can be settled against the service's variances of that day (and a return without returnedAt has a date).
    const day = this.dayOf(step);
    if (this.p.pending !== next.pending || day.returns) await this.save({ pending: next.pending, ...day });
    this.ctx.lock?.assertHeld();
    let effect: LifeWrite;
    try {
      effect = await this.send(step);
    } catch (err) {
      return this.failed(next, err);
    }
    this.applied.push(said(step));
    const following = nextLifeStep(this.plan, applyWrite(this.p, effect));
    // Answered, yet the same write is still wanted: the service did not do it (an action it does not offer).
    if (following.kind === 'write' && following.pending === next.pending) {
      await this.save({ ...effect, pending: '' });
      throw new PermanentJobError(
        'SERVICE_REFUSED',
        `order ${this.plan.orderId}: the service answered "${DO[step.kind]}${nameOf(step)}" but did not do it ` +
          `(the order is ${effect.status ?? this.p.status ?? 'unknown'})`,
        'Check what the service allows for this order in its web application, then retry the job.',
        { orderId: this.plan.orderId, step: next.pending },
      );
    }
    await this.save({ ...effect, pending: following.kind === 'write' && !this.needsRead(following) ? following.pending : '' });
  }

  private needsRead(next: Extract<LifeNext, { kind: 'write' }>): boolean {
    return next.step.kind === 'cancel' && !this.fresh;
  }

  /** A return without returnedAt is dated the day its first variance is sent, kept so a retry finds it. */
  private dayOf(step: LifeWriteStep): LifeWrite {
    if (step.kind !== 'return') return {};
    const known = this.p.returns.get(step.ret.id);
    if (known?.day) return {};
    const day = step.ret.day ?? localDateTime(Date.now()).slice(0, 10);
    return { returns: new Map([[step.ret.id, { urls: known?.urls ?? [], day }]]) };
  }

  private orderEffect(order: Order): LifeWrite {
    return { status: statusOf(order), actions: actionsOf(order), ...(order.orderUrl ? { orderUrl: order.orderUrl } : {}) };
  }

  private async send(step: LifeWriteStep): Promise<LifeWrite> {
    const { client } = this.ctx;
    const plan = this.plan;
    const orderUrl = this.orderPath();
    const action = (name: 'lock' | 'edit' | 'cancel' | 'complete') => this.p.actions[name] ?? `${orderUrl}/${name}`;
    switch (step.kind) {
      case 'create-order':
        return { ...this.orderEffect(await client.createOrder(plan.order!)), items: plan.itemsHash! };
      case 'lock':
      case 'edit':
        return this.orderEffect(await client.orderAction(action(step.kind)));
      case 'items':
        await client.modifyOrder(orderUrl, { orderItemList: plan.order!.orderItemList });
        return { items: plan.itemsHash! };
      case 'complete':
        return this.orderEffect(await client.completeOrder(action('complete')));
      case 'cancel': {
        const answer = await client.orderAction(action('cancel'));
        // The service cancels the order's unshipped shipments with it.
        const gone = new Map([...this.p.parts].filter(([, x]) => !x.shipped).map(([k]) => [k, null] as [string, null]));
        return { ...this.orderEffect(answer), parts: gone };
      }
      case 'shipment': {
        const s = await client.createShipment({ ...step.part.shipment, primaryOrderUrl: orderUrl });
        const part = { shipped: s.statusId === SHIPMENT_SHIPPED, url: s.shipmentUrl, units: step.part.units };
        return { parts: new Map([[step.part.id, part]]) };
      }
      case 'ship': {
        const known = this.p.parts.get(step.part.id)!;
        const s = await client.modifyShipment(known.url, { statusId: SHIPMENT_SHIPPED });
        if (s.statusId !== undefined && s.statusId !== SHIPMENT_SHIPPED)
          throw new PermanentJobError(
            'SERVICE_REFUSED',
            `order ${plan.orderId}: shipping ${step.part.id} answered status ${s.statusId}, not ${SHIPMENT_SHIPPED}`,
            'Check the shipment in the service, then retry the job.',
            { orderId: plan.orderId, shipmentUrl: known.url },
          );
        return { parts: new Map([[step.part.id, { ...known, shipped: true }]]) };
      }
      case 'return': {
        const v = step.ret.variances[step.index]!;
        const day = this.p.returns.get(step.ret.id)?.day ?? step.ret.day!;
        const answer = await client.createVariance({
          physicalInventoryDate: `${day}T19:00:00.000`,
          statusId: 'PHSCL_INV_COMMITTED',
          physicalInventoryTypeId: 'FACILITY',
          facilityUrl: v.facilityUrl,
          inventoryItemVarianceList: v.lines.map(([productUrl, q]) => ({ facilityUrl: v.facilityUrl, productUrl, quantityOnHandVar: q })),
        });
        const known = this.p.returns.get(step.ret.id) ?? { urls: [] };
        return { returns: new Map([[step.ret.id, { ...known, day, urls: [...known.urls, answer.physicalInventoryUrl ?? ''] }]]) };
      }
    }
  }

  /** A write that failed: read back what may have applied, refuse what cannot be retried, retry the rest later. */
  private async failed(next: Extract<LifeNext, { kind: 'write' }>, err: unknown): Promise<void> {
    if (!isServiceError(err)) throw err;
    const uncertain = err.outcome !== 'not-applied';
    if (uncertain || READ_BACK.has(err.code)) {
      this.ctx.note(`"${next.pending}" answered ${err.code}${uncertain ? ' (outcome uncertain)' : ''}; reading the order back`, {
        msg: err.msg,
      });
      await this.refresh(`"${next.pending}" answered ${err.code}`);
      const again = nextLifeStep(this.plan, this.p);
      if (again.kind !== 'write' || again.pending !== next.pending) {
        if (uncertain) this.applied.push(`${said(next.step)} (answer lost, confirmed by a read)`);
        return;
      }
      if (uncertain) throw err;
    } else if (this.p.pending) await this.save({ pending: '' });
    throw REFUSED.has(err.code) ? serviceRefused(this.plan.orderId, `${DO[next.step.kind]}${nameOf(next.step)}`, err) : err;
  }
}
