import type { StockCountRecord } from './stock-count-record.js';
import type { JobContext, JobResult } from '../../src/queue/job-context.js';
import { planDifferences } from './count-plan.js';
import { countResult, leftGroups, leftText, skippedResult, type CountFacts } from './count-outcome.js';
import { loadProgress, type CountProgress } from './count-progress.js';
import { marksGivenBack, openCounts, takeLines } from './open-counts.js';
import { asPlanned, postChunks, settleIntents, type Planned } from './post-chunks.js';
import { readMarks, splitByMarks, type CountRank, type ProductSplit } from './product-marks.js';
import type { FencingLock } from '../../src/redis/redis-lock.js';
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
  lock: FencingLock;
  snapshot: Pick<SnapshotDeps, 'readStock' | 'maxAgeMs' | 'readWaitMs' | 'lockTtlMs' | 'notBefore'>;
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
      why: 'every product was set by a newer count',
      summary: `count ${id} at ${where} was left wholly to newer counts before (${leftText(progress.left)}); nothing to do`,
      details,
    };
  }
  return { outcome: 'unchanged', summary: `count ${id} at ${where} was applied before; nothing to do`, details };
}

/** Applies one count while its location's lock is held (docs/stock-sync.md). */
export async function applyCount(input: ApplyCountInput): Promise<JobResult> {
  const { ctx, record, hash, resolved } = input;
  const where = resolved.location.path;
  const id = record.countId;
  const progress = await loadProgress(ctx.redis, ctx.keys, id);

  if (progress.retired.has(hash)) {
    return {
      outcome: 'skipped',
      summary: `count ${id}: a corrected version of this count replaced this one; not applied`,
      why: 'replaced by a corrected version',
    };
  }
  if (progress.hash === hash && progress.state) return repeat(input, progress, where);
  // A correction replaces an earlier version of this countId; its unposted lines are settled, then dropped.
  const earlier = progress.hash && progress.hash !== hash ? progress : undefined;

  const { rank, split } = await rankAndSplit(input);
  const facts: CountFacts = {
    countId: id,
    where,
    facilityUrl: resolved.location.facilityUrl,
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
  const edits = await settleOthers(input, earlier, rank, split);
  const retired = new Set(progress.retired);
  if (earlier?.hash) retired.add(earlier.hash);
  return planAndPost(input, { rank, split, edits, retired, facts });
}

/**
 * A row split off a count ranks as that count (its plan's arrival number), so a count of the same location and date
 * that came after it keeps the product. Undefined for any other count, or when the count it came from has no plan.
 */
async function splitSeq({ ctx, record, resolved }: ApplyCountInput): Promise<number | undefined> {
  if (record.splitFrom === undefined) return undefined;
  const [seq, facilityUrl, countDate] = await ctx.redis.hmget(
    stockKeys(ctx.keys).count(record.splitFrom),
    'seq',
    'facilityUrl',
    'countDate',
  );
  const same = facilityUrl === resolved.location.facilityUrl && countDate === record.countDate;
  return same && seq ? Number(seq) : undefined;
}

/** The count's place in arrival order, and its products split from those newer counts of the location hold. */
async function rankAndSplit(input: ApplyCountInput): Promise<{ rank: CountRank; split: ProductSplit }> {
  const { ctx, record, resolved } = input;
  const seq = (await splitSeq(input)) ?? (await ctx.redis.incr(stockKeys(ctx.keys).seq));
  const rank = { countId: record.countId, countDate: record.countDate, seq };
  const productUrls = resolved.items.map((i) => i.productUrl);
  const marks = await readMarks(ctx.redis, ctx.keys, resolved.location.facilityUrl, productUrls);
  return { rank, split: splitByMarks(rank, resolved.items, marks, record.splitFrom) };
}

/**
 * Every unfinished count of the location (and the earlier version of this one) settled first, so the snapshot shows
 * all that applied; answers the edits this count's plan makes to theirs.
 */
async function settleOthers(
  input: ApplyCountInput,
  earlier: CountProgress | undefined,
  rank: CountRank,
  split: ProductSplit,
): Promise<PlanEdits> {
  const { ctx, record, resolved, lock } = input;
  const loc = resolved.location.facilityUrl;
  const where = resolved.location.path;
  const { open, stale } = await openCounts(ctx.redis, ctx.keys, loc, record.countId);
  for (const o of open) await settleIntents(ctx, o, lock);
  const replaced = earlier?.state === 'planned' ? earlier : undefined;
  if (replaced) await settleIntents(ctx, replaced, lock);
  const edits: PlanEdits = {
    taken: takeLines(open, split.included, rank),
    restore: replaced ? await marksGivenBack(ctx.redis, ctx.keys, replaced, new Set(split.marks.keys())) : [],
    dropOpen: stale.map((countId) => ({ facilityUrl: loc, countId })),
  };
  if (replaced?.facilityUrl && replaced.facilityUrl !== loc)
    edits.dropOpen.push({ facilityUrl: replaced.facilityUrl, countId: record.countId });
  for (const t of edits.taken) {
    const o = open.find((x) => x.countId === t.countId);
    ctx.note(`count ${t.countId} (${o?.countDate}) at ${where} had unposted lines of products this count sets; they are this count's now`, {
      products: [...t.left.values()].map((l) => l.productId),
    });
  }
  if (replaced) ctx.note(`count ${record.countId}: the unposted lines of its earlier version are dropped; this correction replaces it`);
  return edits;
}

/** What the plan is made of. */
interface PlanParts {
  rank: CountRank;
  split: ProductSplit;
  edits: PlanEdits;
  retired: Set<string>;
  facts: CountFacts;
}

/** The differences against the location's stock, stored as the count's plan (with the edits), then posted. */
async function planAndPost(input: ApplyCountInput, { rank, split, edits, retired, facts }: PlanParts): Promise<JobResult> {
  const { ctx, record, hash, resolved, lock } = input;
  const loc = resolved.location.facilityUrl;
  const where = resolved.location.path;
  const id = record.countId;
  const snap = await locationStock({ ...input.snapshot, client: ctx.client, redis: ctx.redis, keys: ctx.keys, note: ctx.note }, loc);
  const chunks = planDifferences(split.included, snap.stock, ctx.jobs.varianceChunkSize);
  const plan = {
    countId: id,
    hash,
    facilityUrl: loc,
    countDate: record.countDate,
    seq: rank.seq,
    snapshotId: snap.snapshotId,
    products: resolved.items.length,
    retired,
    left: split.left,
  };
  await writePlan(ctx.redis, ctx.keys, { ...plan, chunks, marks: split.marks }, edits, lock);
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
    ...plan,
    state: 'planned',
    chunks: chunks.length,
    lines: new Map(chunks.map((c, i) => [i, c])),
    intents: new Map(),
    applied: new Map(),
  };
  return postChunks(ctx, planned, lock, where);
}
