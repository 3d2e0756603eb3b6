import { isServiceError } from '../client/errors.js';
import type { CreateVarianceBody } from '../client/schemas.js';
import type { StockCountRecord } from '../feed/records.js';
import type { JobContext, JobResult } from '../queue/job-kind.js';
import { planDifferences, varianceDate, type VarianceLine } from './count-plan.js';
import {
  dropIntent,
  finishCount,
  knownVariances,
  loadProgress,
  markIntent,
  recordApplied,
  writePlan,
  type CountProgress,
} from './count-progress.js';
import type { HeldLock } from './redis-lock.js';
import type { ResolvedCount } from './resolve-count.js';
import { findLostVariance } from './settle-variance.js';
import { stockKeys } from './stock-keys.js';
import { locationStock, type SnapshotDeps } from './stock-snapshot.js';

export interface ApplyCountInput {
  ctx: JobContext;
  record: StockCountRecord;
  /** Hash of the record's content. */
  hash: string;
  resolved: ResolvedCount;
  /** The location's lock, held for the whole call. */
  lock: HeldLock;
  snapshot: Pick<SnapshotDeps, 'readStock' | 'maxAgeMs' | 'readWaitMs' | 'lockTtlMs'>;
}

type Planned = CountProgress & { facilityUrl: string; countDate: string; snapshotId: string };

function varianceBody(p: Planned, lines: VarianceLine[]): CreateVarianceBody {
  return {
    physicalInventoryDate: varianceDate(p.countDate),
    statusId: 'PHSCL_INV_COMMITTED',
    physicalInventoryTypeId: 'FACILITY',
    facilityUrl: p.facilityUrl,
    inventoryItemVarianceList: lines.map(([productUrl, q]) => ({ facilityUrl: p.facilityUrl, productUrl, quantityOnHandVar: q })),
  };
}

/** After an uncertain post: asks the service whether chunk i applied; records it, or drops the intent. */
async function settleChunk(ctx: JobContext, p: Planned, i: number, lines: VarianceLine[]): Promise<boolean> {
  const known = await knownVariances(ctx.redis, ctx.keys, p.facilityUrl, p.countDate);
  const url = await findLostVariance(ctx.client, { facilityUrl: p.facilityUrl, countDate: p.countDate, lines, known });
  const label = `count ${p.countId} chunk ${i + 1}/${p.chunks}`;
  if (url !== undefined) {
    await recordApplied(ctx.redis, ctx.keys, p, i, url, lines);
    p.applied.set(i, url);
    ctx.note(`${label}: the service has it (${url || 'no URL given'}); recorded as applied, not posted again`);
    return true;
  }
  await dropIntent(ctx.redis, ctx.keys, p.countId, i);
  ctx.note(`${label}: the service does not have it; it will be posted again`);
  return false;
}

/** Posts every chunk of a plan not yet applied, each behind an intent; settles uncertain ones first. */
async function postChunks(ctx: JobContext, p: Planned, lock: HeldLock, where: string): Promise<JobResult> {
  for (let i = 0; i < p.chunks; i++) {
    if (p.applied.has(i)) continue;
    const lines = p.lines.get(i);
    if (!lines) throw new Error(`count ${p.countId}: the stored plan lacks chunk ${i}; progress in Redis was altered`);
    if (p.intents.has(i)) {
      ctx.note(`count ${p.countId} chunk ${i + 1}/${p.chunks}: posted before without a recorded answer; asking the service`);
      if (await settleChunk(ctx, p, i, lines)) continue;
    }
    lock.assertHeld();
    await markIntent(ctx.redis, ctx.keys, p.countId, i);
    try {
      const v = await ctx.client.createVariance(varianceBody(p, lines));
      await recordApplied(ctx.redis, ctx.keys, p, i, v.physicalInventoryUrl, lines);
      p.applied.set(i, v.physicalInventoryUrl);
    } catch (err) {
      if (isServiceError(err) && err.outcome === 'not-applied') {
        await dropIntent(ctx.redis, ctx.keys, p.countId, i);
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
      if (await settleChunk(ctx, p, i, lines)) continue;
      throw err;
    }
  }
  await finishCount(ctx.redis, ctx.keys, p, 'applied');
  const differences = [...p.lines.values()].reduce((n, l) => n + l.length, 0);
  return {
    outcome: 'synced',
    summary: `count ${p.countId} at ${where} on ${p.countDate}: ${differences} differences posted in ${p.chunks} variance${p.chunks === 1 ? '' : 's'}`,
    details: { facilityUrl: p.facilityUrl, countDate: p.countDate, differences, variances: [...p.applied.values()], snapshotId: p.snapshotId },
  };
}

function asPlanned(p: CountProgress): Planned {
  if (!p.facilityUrl || !p.countDate || !p.snapshotId) throw new Error(`count ${p.countId}: stored progress is incomplete`);
  return p as Planned;
}

/** Settles the open chunks of an unfinished count of this location, so the snapshot shows all that applied. */
async function settleOpen(ctx: JobContext, p: CountProgress, lock: HeldLock): Promise<void> {
  const planned = asPlanned(p);
  for (const i of p.intents.keys()) {
    if (p.applied.has(i)) continue;
    lock.assertHeld();
    await settleChunk(ctx, planned, i, p.lines.get(i) ?? []);
  }
}

/** Applies one count while its location's lock is held (docs/stock-sync.md). */
export async function applyCount(input: ApplyCountInput): Promise<JobResult> {
  const { ctx, record, hash, resolved, lock } = input;
  const loc = resolved.location.facilityUrl;
  const where = resolved.location.path;
  const id = record.countId;
  const progress = await loadProgress(ctx.redis, ctx.keys, id);

  if (progress.retired.has(hash)) {
    return { outcome: 'skipped', summary: `count ${id}: a corrected version of this count replaced this one; not applied` };
  }
  if (progress.hash === hash) {
    if (progress.state === 'applied' || progress.state === 'unchanged') {
      return { outcome: 'unchanged', summary: `count ${id} at ${where} was applied before; nothing to do`, details: { variances: [...progress.applied.values()] } };
    }
    if (progress.state === 'superseded') {
      const summary = `count ${id} at ${where} was superseded by newer count ${progress.supersededBy} before all its chunks were posted (${progress.applied.size} of ${progress.chunks} applied)`;
      return { outcome: 'skipped', summary, details: { supersededBy: progress.supersededBy } };
    }
    if (progress.state === 'planned') {
      ctx.note(`resuming the stored plan of count ${id}`, { chunks: progress.chunks, applied: progress.applied.size });
      return postChunks(ctx, asPlanned(progress), lock, where);
    }
  }

  const wmRaw = await ctx.redis.hget(ctx.keys.countWatermark(), loc);
  const wm = wmRaw ? (JSON.parse(wmRaw) as { countDate: string; countId: string }) : undefined;
  if (wm && record.countDate < wm.countDate) {
    const summary = `count ${id} of ${where} is dated ${record.countDate}, older than count ${wm.countId} (${wm.countDate}) already applied there; not applied over newer stock`;
    ctx.note(summary, { newerCountId: wm.countId, newerCountDate: wm.countDate });
    ctx.logger.warn({ countId: id, newerCountId: wm.countId }, summary);
    return { outcome: 'skipped', summary, details: { newerCountId: wm.countId, newerCountDate: wm.countDate } };
  }

  const retired = new Set(progress.retired);
  if (progress.hash && progress.hash !== hash) retired.add(progress.hash);
  const open = await ctx.redis.hget(stockKeys(ctx.keys).open, loc);
  if (open) {
    const other = open === id ? progress : await loadProgress(ctx.redis, ctx.keys, open);
    if (other.state === 'planned') {
      await settleOpen(ctx, other, lock);
      if (open !== id) await finishCount(ctx.redis, ctx.keys, other, 'superseded', id);
      ctx.note(`count ${open} (${other.countDate}) at ${where} had unposted chunks; superseded by this count`, {
        applied: other.applied.size,
        chunks: other.chunks,
      });
    }
  }

  const snap = await locationStock({ ...input.snapshot, client: ctx.client, redis: ctx.redis, keys: ctx.keys, note: ctx.note }, loc);
  const chunks = planDifferences(resolved.items, snap.stock, ctx.jobs.varianceChunkSize);
  lock.assertHeld();
  await writePlan(ctx.redis, ctx.keys, { countId: id, hash, facilityUrl: loc, countDate: record.countDate, snapshotId: snap.snapshotId, chunks, retired });
  if (!chunks.length) {
    return {
      outcome: 'unchanged',
      summary: `count ${id} at ${where} on ${record.countDate} matches the stock on hand; nothing posted`,
      details: { facilityUrl: loc, countDate: record.countDate, snapshotId: snap.snapshotId },
    };
  }
  ctx.note(`planned ${chunks.length} variance${chunks.length === 1 ? '' : 's'} for count ${id}`, {
    differences: chunks.reduce((n, c) => n + c.length, 0),
    snapshotId: snap.snapshotId,
  });
  const planned: Planned = {
    countId: id,
    hash,
    state: 'planned',
    facilityUrl: loc,
    countDate: record.countDate,
    snapshotId: snap.snapshotId,
    chunks: chunks.length,
    lines: new Map(chunks.map((c, i) => [i, c])),
    intents: new Map(),
    applied: new Map(),
    retired,
  };
  return postChunks(ctx, planned, lock, where);
}
