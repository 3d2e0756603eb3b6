import { isServiceError } from '../../src/client/answers/errors.js';
import type { JobContext, JobResult } from '../../src/queue/job-context.js';
import { PermanentJobError } from '../../src/queue/job-errors.js';
import { localDateTime } from '../../src/time/date-format.js';
import { nextLifeStep, type LifeNext, type NextWrite } from './life-next.js';
import { READ_BACK, REFUSED, refuseUnfollowedOrder, serviceRefused } from './order-errors.js';
import type { OrderPlan } from './order-plan.js';
import { applyWrite, isOlder, type OrderProgress, type ProgressStore, type ProgressWrite } from './order-progress.js';
import { readBack, settleRead } from './order-read.js';
import { orderWrite, type OrderWrite } from './order-writes.js';

/** The write `next` as its marker, with the day of a return recorded beside it (a lost answer is settled against that day). */
export function intentOf(p: OrderProgress, next: LifeNext): ProgressWrite {
  if (next.kind !== 'write') return { pending: '' };
  const { step } = next;
  if (step.kind !== 'return' || p.returns.get(step.ret.id)?.day) return { pending: next.pending };
  const day = step.ret.day ?? localDateTime(Date.now()).slice(0, 10);
  return { pending: next.pending, returns: new Map([[step.ret.id, { urls: p.returns.get(step.ret.id)?.urls ?? [], day }]]) };
}

/** Whether the record is older than the newest snapshot seen (a return notice never is, nor makes others so). */
export function olderThanSeen(plan: OrderPlan, p: OrderProgress): boolean {
  return !plan.notice && !!plan.updatedAt && !!p.seenAt && isOlder(plan.updatedAt, p.seenAt);
}

/**
 * One attempt at bringing the service to an order record, plain or not (docs/orders.md "One machine"): the next step
 * is asked of life-next.ts until there is none; each write's intent is recorded with the previous write's outcome, and
 * any write whose outcome is uncertain is settled by reading the service. A plain order's happy path: 4 POSTs, 0 GETs.
 */
export class OrderRun {
  private readonly applied: string[] = [];
  /** Recorded with the next save: the newest snapshot seen, the record the progress is now made for. */
  private memo: ProgressWrite = {};

  constructor(
    private readonly plan: OrderPlan,
    private readonly ctx: JobContext,
    private readonly store: ProgressStore,
  ) {}

  private get p(): OrderProgress {
    return this.store.p;
  }

  async run(): Promise<JobResult> {
    const { plan, ctx } = this;
    if (olderThanSeen(plan, this.p)) return this.older();
    const newer = !plan.notice && plan.updatedAt && (!this.p.seenAt || isOlder(this.p.seenAt, plan.updatedAt));
    this.memo = {
      ...(newer ? { seenAt: plan.updatedAt } : {}),
      ...(plan.notice || this.p.recordHash === plan.recordHash ? {} : { recordHash: plan.recordHash }),
    };
    if (ctx.fromService) await this.refresh('a resync or repair plans from what the service has');
    else if (this.p.pending) await this.settle(this.p.pending);
    for (let guard = 0; guard < 60 + 3 * (plan.parts.length + plan.returns.length); guard++) {
      const next = nextLifeStep(plan, this.p);
      if (next.kind === 'write') await this.write(next);
      else if (next.kind === 'read') await this.refresh(next.why);
      else {
        if (Object.keys(this.memo).length || this.p.pending) await this.save({ pending: '' });
        if (next.kind === 'refuse') throw next.error;
        return this.result(next.why);
      }
    }
    throw new Error(`order ${plan.orderId}: no end to its steps`);
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
    const { plan, p, applied } = this;
    const urls = [...p.parts.values()].map((x) => x.url);
    const details = plan.plain
      ? { orderUrl: p.orderUrl, shipmentUrl: urls[0], applied }
      : { orderUrl: p.orderUrl, status: p.status ?? 'not created', shipmentUrls: urls, applied };
    const all = { ...details, ...(plan.updatedAt ? { updatedAt: plan.updatedAt } : {}) };
    const id = plan.orderId;
    if (applied.length) return { outcome: 'synced', summary: `order ${id}: ${applied.join(', ')}`, details: all };
    if (why) return { outcome: 'skipped', summary: `order ${id}: ${why}`, why, details: all };
    const said = plan.plain ? ' was already synced (completed in the service)' : ': the service already matches the snapshot';
    return { outcome: 'unchanged', summary: `order ${id}${said}`, details: all };
  }

  private async save(w: ProgressWrite, startTtl = false): Promise<void> {
    const all = { ...this.memo, ...w };
    this.memo = {};
    await this.store.save(all, startTtl);
  }

  /** Reads the order and its shipments, and takes them as what is known. */
  private async refresh(why: string): Promise<void> {
    this.ctx.note(`reading the order back: ${why}`);
    const w = await this.ctx.settling(this.p.pending ?? 'read', () => readBack(this.ctx, this.plan, this.p));
    await this.save(w);
  }

  /** A write whose outcome is uncertain (an earlier attempt's, or this one's lost answer): read to know whether it was applied. */
  private async settle(pending: string, lostAt?: number): Promise<boolean> {
    const { ctx, plan } = this;
    ctx.note(`outcome of "${pending}" is uncertain; reading the service to settle it`);
    const w = await ctx.settling(pending, () => settleRead(ctx, plan, this.p, pending, lostAt));
    // Applied when the same write is no longer wanted once the read is taken as what is known.
    const again = nextLifeStep(plan, { ...applyWrite(this.p, w), fresh: true });
    const done = again.kind !== 'write' || again.pending !== pending;
    ctx.note(done ? `"${pending}" had been applied; carrying on` : `"${pending}" had not been applied; it will be sent again`);
    await this.save(w);
    return done;
  }

  /**
   * The order's write path: the intent recorded (unless the write before recorded it), the lock checked, the request
   * sent, and what it made known recorded with the next write's intent in one round trip.
   */
  private async write(next: NextWrite): Promise<void> {
    const { plan, ctx } = this;
    if (next.step.kind === 'create-order') refuseUnfollowedOrder(plan.orderId, ctx.client);
    const intent = intentOf(this.p, next);
    if (this.p.pending !== next.pending || intent.returns) await this.save(intent, next.step.kind === 'create-order');
    const request = orderWrite(plan, this.p, next, ctx.client);
    // Another worker may have the job once this one lost its lock: stop before writing.
    ctx.lock?.assertHeld();
    let effect: ProgressWrite;
    try {
      effect = await request.send(ctx.client);
    } catch (err) {
      return this.failed(next, request, err);
    }
    this.applied.push(request.done);
    const following = nextLifeStep(plan, applyWrite(this.p, effect));
    // Answered, yet the same write is still wanted: the service did not do it (an action it does not offer).
    if (following.kind === 'write' && following.pending === next.pending) {
      await this.save({ ...effect, pending: '' });
      const why = `the service answered "${request.ask}" but did not do it (the order is ${this.p.status ?? 'unknown'})`;
      throw new PermanentJobError(
        'SERVICE_REFUSED',
        `order ${plan.orderId}: ${why}`,
        'Check what the service allows for this order in its web application, then retry the job.',
        { orderId: plan.orderId, step: next.pending },
        why,
      );
    }
    await this.save({ ...effect, ...intentOf(applyWrite(this.p, effect), following) });
  }

  /** A write that failed: read back what may have applied, refuse what cannot be retried, retry the rest later. */
  private async failed(next: NextWrite, request: OrderWrite, err: unknown): Promise<void> {
    if (!isServiceError(err)) throw err;
    const uncertain = err.outcome !== 'not-applied';
    // A refused ship may be a shipment shipped already; a duplicate, an integrity error or a closed order, one that exists.
    if (uncertain || READ_BACK.has(err.code) || (next.step.kind === 'ship' && REFUSED.has(err.code))) {
      this.ctx.note(`"${next.pending}" answered ${err.code}${uncertain ? ' (outcome uncertain)' : ''}; reading the service back`, {
        msg: err.msg,
      });
      if (await this.settle(next.pending, uncertain ? Date.now() : undefined)) {
        if (uncertain) this.applied.push(`${request.done} (answer lost, confirmed by a read)`);
        return;
      }
      if (uncertain) throw err;
    } else if (this.p.pending) await this.save({ pending: '' });
    throw REFUSED.has(err.code) ? serviceRefused(this.plan.orderId, request.ask, err) : err;
  }
}
