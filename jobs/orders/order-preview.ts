import type { PreviewContext } from '../../src/queue/job-context.js';
import { ConflictError, PermanentJobError } from '../../src/queue/job-errors.js';
import type { PlannedCall, PreviewResult } from '../../src/queue/record-plan.js';
import { nextLifeStep } from './life-next.js';
import { orderKeys } from './order-keys.js';
import { planOrder, type OrderPlan } from './order-plan.js';
import { applyWrite, isOlder, parseProgress, stepOf, type OrderProgress, type ProgressWrite } from './order-progress.js';
import { readBack, settleRead } from './order-read.js';
import type { OrderInput } from './order-record.js';
import { refuseUnfollowedOrder } from './order-errors.js';
import { intentOf, olderThanSeen } from './order-run.js';
import { syncedBefore } from './order-sync.js';
import { orderWrite } from './order-writes.js';

/**
 * A read of an order this dry run planned earlier: the service would hold what those plans wrote, so the progress says
 * it. A plain record is compared with it as the job compares it with the service: what it knows must be the record's.
 */
function plannedRead(plan: OrderPlan, p: OrderProgress): ProgressWrite {
  const part = plan.parts[0];
  const other = p.items !== plan.itemsHash || [...p.parts].some(([id, x]) => id !== part?.id || x.unitsHash !== part.unitsHash);
  if (plan.plain && p.status && other)
    throw new ConflictError(
      `order ${plan.orderId}: another version of this order earlier in this run makes it otherwise; ` +
        'this one would be compared with the order that one makes and refused where they differ',
      'Send one version of each plain order; a correction of a synced order is compared with the service.',
      { orderId: plan.orderId },
    );
  return { fresh: true };
}

/**
 * The dry run of an order record: the same next steps the job takes (life-next.ts, order-writes.ts), from the progress
 * kept and the reads the job makes first; a record of an order planned earlier in this run is planned against what
 * those plans would have left, so that a file of snapshots plans the writes its real run sends.
 */
export async function previewOrder(input: OrderInput, ctx: PreviewContext): Promise<PreviewResult> {
  const id = input.orderId;
  const lives = ctx.memo('order-lives', () => new Map<string, OrderProgress>());
  const before = lives.get(id);
  const hash = before ? {} : await ctx.redis.hgetall(orderKeys(ctx.keys).progress(id));
  if (!before && syncedBefore(input, hash, ctx.fromService))
    return { outcome: 'unchanged', summary: `order ${id}: already synced (completed); no calls`, calls: [] };
  const plan = await planOrder(input, ctx.catalog);
  let p = before ?? parseProgress(hash, plan);
  if (olderThanSeen(plan, p))
    return { outcome: 'skipped', summary: `order ${id}: older than the snapshot of ${p.seenAt}; no calls`, calls: [] };
  const calls: PlannedCall[] = [];
  let why: string | undefined;
  let refused: PermanentJobError | undefined;
  let from = stepOf(p);
  // As the job records with its first save the record its progress is made for.
  const take = (w: ProgressWrite) => (p = applyWrite(p, { ...w, ...(plan.notice ? {} : { recordHash: plan.recordHash }) }));
  try {
    // The reads the job starts with, against the service (an order this run planned has nothing uncertain).
    if (ctx.fromService) take(await readBack(ctx, plan, p));
    else if (p.pending) take({ ...(await settleRead(ctx, plan, p, p.pending)), pending: '' });
    from = stepOf(p);
    for (;;) {
      const next = nextLifeStep(plan, p);
      if (next.kind === 'refuse') throw next.error;
      if (next.kind === 'done') {
        why = next.why;
        break;
      }
      if (next.kind === 'read') take(before ? plannedRead(plan, p) : await readBack(ctx, plan, p));
      else {
        if (next.step.kind === 'create-order') refuseUnfollowedOrder(plan.orderId, ctx.client);
        const w = orderWrite(plan, applyWrite(p, intentOf(p, next)), next, ctx.client);
        calls.push({ method: 'POST', path: w.path, body: w.body, what: w.said });
        take({ ...intentOf(p, next), ...w.planned, pending: '' });
      }
    }
  } catch (err) {
    if (!(err instanceof PermanentJobError)) throw err;
    refused = err;
  }
  const newer = !plan.notice && plan.updatedAt && (!p.seenAt || isOlder(p.seenAt, plan.updatedAt));
  lives.set(id, applyWrite(p, { fresh: false, ...(newer ? { seenAt: plan.updatedAt } : {}) }));
  const details = {
    status: p.status ?? 'not created',
    ...(plan.updatedAt ? { updatedAt: plan.updatedAt } : {}),
    ...(p.orderUrl ? { orderUrl: p.orderUrl } : {}),
  };
  if (refused) {
    const error = { code: refused.code, message: refused.message, hint: refused.hint };
    return { outcome: 'fails', summary: `[${error.code}] ${error.message}`, calls, details, error };
  }
  return { ...plannedSummary(plan, calls, from, why), calls, details };
}

function plannedSummary(plan: OrderPlan, calls: PlannedCall[], from: string, why?: string): Pick<PreviewResult, 'outcome' | 'summary'> {
  const id = plan.orderId;
  if (calls.length) {
    const resumed = from === 'none' ? '' : ` (resumes after "${from}")`;
    return { outcome: 'writes', summary: `order ${id}: ${calls.length} call${calls.length === 1 ? '' : 's'}${resumed}` };
  }
  const said = why ?? (plan.plain ? 'already synced (completed in the service)' : 'the service already matches the snapshot');
  return { outcome: why ? 'skipped' : 'unchanged', summary: `order ${id}: ${said}; no calls` };
}
