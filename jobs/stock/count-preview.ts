import { readStockOnHand, type StockOnHand } from '../../src/catalog/stock-on-hand.js';
import type { PlannedCall, PreviewResult } from '../../src/queue/record-plan.js';
import type { PreviewContext } from '../../src/queue/job-context.js';
import { planDifferences, varianceDate, type VarianceLine } from './count-plan.js';
import { leftText } from './count-outcome.js';
import { loadProgress, type CountProgress } from './count-progress.js';
import { varianceBody } from './post-chunks.js';
import { readMarks, splitByMarks, type ProductMark } from './product-marks.js';
import { countVersionHash } from './count-version-hash.js';
import { resolveCount, unknownProductError, type ResolvedCount } from './resolve-count.js';
import { splitRows, splitSummary } from './split-rows.js';
import type { StockCountRecord } from './stock-count-record.js';
import { stockKeys } from './stock-keys.js';

/** What the counts of one dry run share: one read of on-hand stock, moved by each count as the real run moves it. */
interface CountRun {
  /** The inventory item collection, read once, then the simulated on-hand after each count previewed. */
  stock?: Promise<StockOnHand>;
  /** Plans drawn so far (the real run draws each plan's arrival number from `stock:seq`). */
  plans: number;
  /** Marks the counts previewed so far would write, per location. */
  marks: Map<string, Map<string, ProductMark>>;
}

function calls(account: string, p: { facilityUrl: string; countDate: string }, chunks: VarianceLine[][]): PlannedCall[] {
  return chunks.map((lines, i) => ({
    method: 'POST',
    path: `/${account}/api/inventoryvariance`,
    body: varianceBody(p, lines),
    what:
      `variance dated ${varianceDate(p.countDate)}${chunks.length > 1 ? `, chunk ${i + 1}/${chunks.length}` : ''}` +
      ` (${lines.length} line${lines.length === 1 ? '' : 's'})`,
  }));
}

/** A count planned before under this very content: its stored end, or the chunks its plan has left to post. */
function repeat(id: string, where: string, account: string, p: CountProgress): PreviewResult {
  if (p.state === 'planned' && p.facilityUrl && p.countDate) {
    const left = [...p.lines].filter(([i, lines]) => !p.applied.has(i) && lines.length).map(([, lines]) => lines);
    const settle = [...p.intents.keys()].some((i) => !p.applied.has(i))
      ? '; chunks posted without a recorded answer are first looked for in the service'
      : '';
    return {
      outcome: 'writes',
      summary: `count ${id} at ${where}: resumes its stored plan, ${left.length} chunk(s) left${settle}`,
      calls: calls(account, { facilityUrl: p.facilityUrl, countDate: p.countDate }, left),
    };
  }
  if (p.state === 'skipped')
    return {
      outcome: 'skipped',
      summary: `count ${id} at ${where}: left wholly to newer counts before (${leftText(p.left)}); no calls`,
      calls: [],
    };
  return { outcome: 'unchanged', summary: `count ${id} at ${where}: already applied; no calls`, calls: [] };
}

/**
 * The dry run of a stock count: resolved as the job resolves it, its products split by the location's marks (in
 * Redis, and those of the counts previewed before it in this run), its differences computed against the run's one
 * read of on-hand stock, which it then moves as its variance would. Nothing is written.
 */
export async function previewCount(record: StockCountRecord, ctx: PreviewContext): Promise<PreviewResult> {
  const resolved = await resolveCount(ctx.catalog, record);
  // As the job: a row whose product the service lacks would wait alone, as its own count; with no other row, the count.
  if (resolved.unknown.length === record.items.length) throw unknownProductError(ctx.catalog, record, resolved.unknown);
  const result = await previewKnown(record, resolved, ctx);
  const split = splitRows(record, resolved.unknown);
  if (!split.waiting.length && !split.failing.length) return result;
  const details = {
    ...result.details,
    ...(split.waiting.length ? { splitOff: split.waiting } : {}),
    ...(split.failing.length ? { badRows: split.failing } : {}),
  };
  return { ...result, summary: `${result.summary}; ${splitSummary(split, true)}`, details };
}

/** The dry run of the rows whose products the service has. */
async function previewKnown(record: StockCountRecord, resolved: ResolvedCount, ctx: PreviewContext): Promise<PreviewResult> {
  const id = record.countId;
  const loc = resolved.location.facilityUrl;
  const where = resolved.location.path;
  const hash = countVersionHash(record);
  const progress = await loadProgress(ctx.redis, ctx.keys, id);
  if (progress.retired.has(hash))
    return { outcome: 'skipped', summary: `count ${id}: a corrected version of this count replaced this one; not applied`, calls: [] };
  if (progress.hash === hash && progress.state) return repeat(id, where, ctx.client.account, progress);

  // A correction of an earlier version: its unposted lines are dropped, and it is planned even when wholly left out.
  const corrects = progress.hash && progress.hash !== hash ? progress.hash : undefined;
  const run = ctx.memo<CountRun>('stock-counts', () => ({ plans: 0, marks: new Map() }));
  const sk = stockKeys(ctx.keys);
  const seq = Number((await ctx.redis.get(sk.seq)) ?? 0) + ++run.plans;
  const urls = resolved.items.map((i) => i.productUrl);
  const marks = await readMarks(ctx.redis, ctx.keys, loc, urls);
  const inRun = run.marks.get(loc) ?? new Map<string, ProductMark>();
  for (const url of urls) if (inRun.has(url)) marks.set(url, inRun.get(url)!);
  const split = splitByMarks({ countId: id, countDate: record.countDate, seq }, resolved.items, marks, record.splitFrom);
  const left = split.left.size ? { leftToNewer: [...split.left.values()] } : {};
  if (!split.included.length && !corrects) {
    return {
      outcome: 'skipped',
      summary: `count ${id} at ${where}: every product was set by newer counts (${leftText(split.left)}); no calls`,
      calls: [],
      details: left,
    };
  }

  run.stock ??= readStockOnHand(ctx.client);
  const all = await run.stock;
  const onHand = all.get(loc) ?? new Map<string, number>();
  all.set(loc, onHand);
  const lines = resolved.items.map((i) => ({
    productId: i.productId,
    productUrl: i.productUrl,
    onHand: onHand.get(i.productUrl) ?? 0,
    counted: i.quantity,
  }));
  const chunks = planDifferences(split.included, onHand, ctx.jobs.varianceChunkSize);
  const variance = new Map(chunks.flat());
  // The next count of this location in this run sees the stock this one leaves, and the products it set.
  for (const [url, q] of variance) onHand.set(url, (onHand.get(url) ?? 0) + q);
  for (const [url, mark] of split.marks) inRun.set(url, mark);
  run.marks.set(loc, inRun);

  const open = (await ctx.redis.smembers(sk.open(loc))).filter((c) => c !== id);
  const details = {
    location: where,
    facilityUrl: loc,
    countDate: record.countDate,
    lines: lines.map((l) => ({
      ...l,
      quantityOnHandVar: variance.get(l.productUrl) ?? 0,
      ...(split.left.has(l.productUrl) ? { leftTo: split.left.get(l.productUrl)!.countId } : {}),
    })),
    ...left,
    ...(open.length ? { unfinishedCounts: open } : {}),
    ...(corrects ? { corrects } : {}),
  };
  const notes = [
    split.left.size ? `products left to newer counts: ${leftText(split.left)}` : '',
    open.length ? `${open.length} unfinished count(s) of this location are settled first and may give up lines of these products` : '',
    corrects ? "a correction: the earlier version's unposted lines are dropped" : '',
  ].filter(Boolean);
  const more = notes.length ? `; ${notes.join('; ')}` : '';
  if (!chunks.length)
    return { outcome: 'unchanged', summary: `count ${id} at ${where}: every product already matches; no calls${more}`, calls: [], details };
  const n = variance.size;
  return {
    outcome: 'writes',
    summary:
      `count ${id} at ${where}: ${n} difference${n === 1 ? '' : 's'} ` +
      `in ${chunks.length} variance${chunks.length === 1 ? '' : 's'}${more}`,
    calls: calls(ctx.client.account, { facilityUrl: loc, countDate: record.countDate }, chunks),
    details,
  };
}
