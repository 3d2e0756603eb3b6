import type { StockCountRecord } from './stock-count-record.js';
import type { JobContext, JobResult } from '../../src/queue/job-kind.js';
import { planDifferences } from './count-plan.js';
import { countResult, leftGroups, leftText, skippedResult, type CountFacts } from './count-outcome.js';
import { loadProgress, type CountProgress } from './count-progress.js';
import { marksGivenBack, openCounts, takeLines } from './open-counts.js';
import { asPlanned, postChunks, settleIntents, type Planned } from './post-chunks.js';
import { readMarks, splitByMarks } from './product-marks.js';
import type { HeldLock } from '../../src/redis/redis-lock.js';
import type { ResolvedCount } from './resolve-count.js';
import { stockKeys } from './stock-keys.js';
import { locationStock, type SnapshotDeps } from './stock-snapshot.js';
import { writePlan, type PlanEdits } from './write-plan.js';

export interface ApplyCountInput {
  ctx: JobContext;
  record: StockCountRecord;
  /** Hash of the record's content. */
  hash: string;
  resolved: ResolvedCount;
  /** The location's lock (and an earlier version's location, when that one is unfinished), held for the whole call. */
  lock: HeldLock;
  snapshot: Pick<SnapshotDeps, 'readStock' | 'maxAgeMs' | 'readWaitMs' | 'lockTtlMs'>;
}

/** The answer for a count already planned under this very content: its stored end, or its plan resumed. */
async function repeat(input: ApplyCountInput, progress: CountProgress, where: string): Promise<JobResult> {
  const { ctx, record } = input;
  const id = record.countId;
  if (progress.state === 'planned') {
    ctx.note(`resuming the stored plan of count ${id}`, {
      chunks: progress.chunks,
      applied: progress.applied.size,
      left: progress.left.size,
    });
    return postChunks(ctx, asPlanned(progress), input.lock, where);
  }
  const details = { variances: [...progress.applied.values()], ...(progress.left.size ? { leftToNewer: leftGroups(progress.left) } : {}) };
  if (progress.state === 'skipped') {
    return {
      outcome: 'skipped',
      summary: `count ${id} at ${where} was left wholly to newer counts before (${leftText(progress.left)}); nothing to do`,
      details,
    };
  }
  return { outcome: 'unchanged', summary: `count ${id} at ${where} was applied before; nothing to do`, details };
}

/** Applies one count while its location's lock is held (docs/stock-sync.md). */
export async function applyCount(input: ApplyCountInput): Promise<JobResult> {
  const { ctx, record, hash, resolved, lock } = input;
  const sk = stockKeys(ctx.keys);
  const loc = resolved.location.facilityUrl;
  const where = resolved.location.path;
  const id = record.countId;
  const progress = await loadProgress(ctx.redis, ctx.keys, id);

  if (progress.retired.has(hash)) {
    return { outcome: 'skipped', summary: `count ${id}: a corrected version of this count replaced this one; not applied` };
  }
  if (progress.hash === hash && progress.state) return repeat(input, progress, where);
  // A correction replaces an earlier version of this countId; its unposted lines are settled, then dropped.
  const earlier = progress.hash && progress.hash !== hash ? progress : undefined;

  const seq = await ctx.redis.incr(sk.seq);
  const rank = { countId: id, countDate: record.countDate, seq };
  const marks = await readMarks(
    ctx.redis,
    ctx.keys,
    loc,
    resolved.items.map((i) => i.productUrl),
  );
  const split = splitByMarks(rank, resolved.items, marks);
  const facts: CountFacts = {
    countId: id,
    where,
    facilityUrl: loc,
    countDate: record.countDate,
    products: resolved.items.length,
    left: split.left,
    differences: 0,
    variances: [],
  };
  if (!split.included.length && !earlier) {
    const result = skippedResult(facts);
    ctx.note(result.summary, { leftToNewer: leftGroups(split.left) });
    ctx.logger.warn({ countId: id, newer: leftGroups(split.left).map((g) => g.countId) }, result.summary);
    return result;
  }

  // Every unfinished count of the location is settled first, so the snapshot shows all that applied.
  const { open, stale } = await openCounts(ctx.redis, ctx.keys, loc, id);
  for (const o of open) await settleIntents(ctx, o, lock);
  if (earlier?.state === 'planned') await settleIntents(ctx, earlier, lock);
  const edits: PlanEdits = {
    taken: takeLines(open, split.included, rank),
    restore: earlier?.state === 'planned' ? await marksGivenBack(ctx.redis, ctx.keys, earlier, new Set(split.marks.keys())) : [],
    dropOpen: stale.map((countId) => ({ facilityUrl: loc, countId })),
  };
  if (earlier?.state === 'planned' && earlier.facilityUrl && earlier.facilityUrl !== loc)
    edits.dropOpen.push({ facilityUrl: earlier.facilityUrl, countId: id });
  for (const t of edits.taken) {
    const o = open.find((x) => x.countId === t.countId);
    ctx.note(`count ${t.countId} (${o?.countDate}) at ${where} had unposted lines of products this count sets; they are this count's now`, {
      products: [...t.left.values()].map((l) => l.productId),
    });
  }
  if (earlier?.state === 'planned')
    ctx.note(`count ${id}: the unposted lines of its earlier version are dropped; this correction replaces it`);

  const snap = await locationStock({ ...input.snapshot, client: ctx.client, redis: ctx.redis, keys: ctx.keys, note: ctx.note }, loc);
  const chunks = planDifferences(split.included, snap.stock, ctx.jobs.varianceChunkSize);
  const retired = new Set(progress.retired);
  if (earlier?.hash) retired.add(earlier.hash);
  lock.assertHeld();
  await writePlan(
    ctx.redis,
    ctx.keys,
    {
      countId: id,
      hash,
      facilityUrl: loc,
      countDate: record.countDate,
      seq,
      snapshotId: snap.snapshotId,
      products: resolved.items.length,
      chunks,
      retired,
      left: split.left,
      marks: split.marks,
    },
    edits,
  );
  if (split.left.size)
    ctx.note(`count ${id}: products left to newer counts of ${where}: ${leftText(split.left)}`, {
      left: split.left.size,
      products: resolved.items.length,
    });
  if (!chunks.length) return countResult({ ...facts, snapshotId: snap.snapshotId });
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
    seq,
    snapshotId: snap.snapshotId,
    products: resolved.items.length,
    chunks: chunks.length,
    lines: new Map(chunks.map((c, i) => [i, c])),
    intents: new Map(),
    applied: new Map(),
    left: split.left,
    retired,
  };
  return postChunks(ctx, planned, lock, where);
}
