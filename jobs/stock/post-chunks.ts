import { isServiceError } from '../../src/client/answers/errors.js';
import type { CreateVarianceBody } from '../../src/client/answers/schemas.js';
import type { JobContext, JobResult } from '../../src/queue/job-context.js';
import { varianceDate, type VarianceLine } from './count-plan.js';
import { countResult, leftText } from './count-outcome.js';
import { dropIntent, finishCount, knownVariances, markIntent, recordApplied, type CountProgress } from './count-progress.js';
import type { FencingLock } from '../../src/redis/redis-lock.js';
import { findLostVariance } from './settle-variance.js';
import { isLeaseLost } from '../../src/queue/lease/lease-lost.js';
import { settleLaterUnlessPast } from '../../src/queue/settle-later.js';

export type Planned = CountProgress & { facilityUrl: string; countDate: string; snapshotId: string };

export function asPlanned(p: CountProgress): Planned {
  if (!p.facilityUrl || !p.countDate || !p.snapshotId) throw new Error(`count ${p.countId}: stored progress is incomplete`);
  return p as Planned;
}

/** The body of one chunk's variance (the dry run previews the same). */
export function varianceBody(p: Pick<Planned, 'countDate' | 'facilityUrl'>, lines: VarianceLine[]): CreateVarianceBody {
  return {
    physicalInventoryDate: varianceDate(p.countDate),
    statusId: 'PHSCL_INV_COMMITTED',
    physicalInventoryTypeId: 'FACILITY',
    facilityUrl: p.facilityUrl,
    inventoryItemVarianceList: lines.map(([productUrl, q]) => ({ facilityUrl: p.facilityUrl, productUrl, quantityOnHandVar: q })),
  };
}

/**
 * After an uncertain post: asks the service whether chunk i applied; records it, or drops the intent once the service
 * can no longer apply it (`lostAt`, its answer's loss, else its intent's time, plus ctx.lateWriteMs: SettleLaterError).
 */
export async function settleChunk(
  ctx: JobContext,
  lock: FencingLock,
  p: Planned,
  i: number,
  lines: VarianceLine[],
  lostAt = p.intents.get(i) ?? 0,
): Promise<boolean> {
  const known = await knownVariances(ctx.redis, ctx.keys, p.facilityUrl, p.countDate);
  const url = await findLostVariance(ctx.client, { facilityUrl: p.facilityUrl, countDate: p.countDate, lines, known });
  const label = `count ${p.countId} chunk ${i + 1}/${p.chunks}`;
  if (url !== undefined) {
    await recordApplied(ctx.redis, ctx.keys, p, i, url, lines);
    p.applied.set(i, url);
    ctx.note(`${label}: the service has it (${url || 'no URL given'}); recorded as applied, not posted again`);
    return true;
  }
  settleLaterUnlessPast(lostAt, ctx.lateWriteMs, label);
  await dropIntent(ctx.redis, ctx.keys, p.countId, i, lock);
  p.intents.delete(i);
  ctx.note(`${label}: the service does not have it; it will be posted again`);
  return false;
}

/** Settles every chunk of a plan posted without a recorded answer, so the snapshot shows all that applied. */
export async function settleIntents(ctx: JobContext, p: CountProgress, lock: FencingLock): Promise<void> {
  if (![...p.intents.keys()].some((i) => !p.applied.has(i))) return;
  const planned = asPlanned(p);
  for (const i of [...p.intents.keys()]) {
    if (p.applied.has(i)) continue;
    lock.assertHeld();
    await settleChunk(ctx, lock, planned, i, p.lines.get(i) ?? []);
  }
}

/**
 * Posts every chunk of a plan not yet applied, each behind an intent, settling uncertain ones first; a chunk a
 * newer count emptied (every line taken) posts nothing. Then finishes the count and answers its outcome.
 */
export async function postChunks(ctx: JobContext, p: Planned, lock: FencingLock, where: string): Promise<JobResult> {
  for (let i = 0; i < p.chunks; i++) {
    if (p.applied.has(i)) continue;
    const lines = p.lines.get(i);
    if (!lines) throw new Error(`count ${p.countId}: the stored plan lacks chunk ${i}; progress in Redis was altered`);
    if (!lines.length) continue;
    if (p.intents.has(i)) {
      ctx.note(`count ${p.countId} chunk ${i + 1}/${p.chunks}: posted before without a recorded answer; asking the service`);
      if (await settleChunk(ctx, lock, p, i, lines)) continue;
    }
    await markIntent(ctx.redis, ctx.keys, p.countId, i, lock);
    try {
      const v = await ctx.client.createVariance(varianceBody(p, lines));
      await recordApplied(ctx.redis, ctx.keys, p, i, v.physicalInventoryUrl, lines);
      p.applied.set(i, v.physicalInventoryUrl);
    } catch (err) {
      // Stopped at the fence: nothing was sent, and the newer execution of the job owns its progress.
      if (isLeaseLost(err)) throw err;
      if (isServiceError(err) && err.outcome === 'not-applied') {
        await dropIntent(ctx.redis, ctx.keys, p.countId, i, lock);
        throw err;
      }
      if (isServiceError(err) && err.outcome === 'applied') {
        await recordApplied(ctx.redis, ctx.keys, p, i, '', lines);
        p.applied.set(i, '');
        ctx.note(`count ${p.countId} chunk ${i + 1}/${p.chunks}: applied, answer unreadable; recorded as applied`);
        continue;
      }
      const code = isServiceError(err) ? err.code : (err as Error).name;
      ctx.note(`count ${p.countId} chunk ${i + 1}/${p.chunks}: the answer was lost (${code}); asking the service whether it applied`);
      if (await settleChunk(ctx, lock, p, i, lines, Date.now())) continue;
      throw err;
    }
  }
  const differences = [...p.applied.keys()].reduce((n, i) => n + (p.lines.get(i)?.length ?? 0), 0);
  const result = countResult({
    countId: p.countId,
    where,
    facilityUrl: p.facilityUrl,
    countDate: p.countDate,
    products: p.products,
    left: p.left,
    differences,
    variances: [...p.applied.values()],
    snapshotId: p.snapshotId,
  });
  await finishCount(ctx.redis, ctx.keys, p, result.outcome === 'synced' ? 'applied' : result.outcome);
  if (p.left.size)
    ctx.note(`count ${p.countId}: products left to newer counts of ${where}: ${leftText(p.left)}`, {
      left: p.left.size,
      products: p.products,
    });
  return result;
}
