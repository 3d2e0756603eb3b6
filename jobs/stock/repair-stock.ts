import { z } from 'zod';
import { defaults } from '../../config/defaults.js';
import { readStockOnHand } from '../../src/catalog/stock-on-hand.js';
import { isServiceError } from '../../src/client/answers/errors.js';
import { BadRecordError } from '../../src/queue/job-errors.js';
import { zodProblems } from '../../src/errors/zod-problems.js';
import type { JobContext, JobResult, PreviewContext } from '../../src/queue/job-context.js';
import type { PlannedCall, PreviewResult } from '../../src/queue/record-plan.js';
import { varianceDate, type VarianceLine } from './count-plan.js';
import { varianceBody } from './post-chunks.js';
import { withRedisLocks } from '../../src/redis/redis-lock.js';
import type { StockCountRecord } from './stock-count-record.js';
import { stockKeys } from './stock-keys.js';

/** One (location, product) a repair sets back: the on-hand reconcile expected (the count less synced sales since). */
export const stockTargetSchema = z.object({
  facilityUrl: z.string().min(1),
  productUrl: z.string().min(1),
  productId: z.string().min(1),
  /** The on-hand to set. */
  quantity: z.number().finite(),
});
export type StockTarget = z.infer<typeof stockTargetSchema>;

const near = (a: number, b: number) => Math.abs(a - b) < 1e-6;
const round = (n: number) => Math.round(n * 1e6) / 1e6;
/** Today's business date, for the repair's variance (at 19:00, as every variance). */
const today = () => new Date().toISOString().slice(0, 10);

function targetsOf(record: StockCountRecord, raw: unknown): StockTarget[] {
  const parsed = z.array(stockTargetSchema).min(1).safeParse(raw);
  if (!parsed.success) {
    const [issue] = zodProblems(parsed.error.issues, { under: 'fromService.targets.' });
    throw new BadRecordError(`count ${record.countId}`, issue?.field ?? 'fromService.targets.', issue?.reason ?? 'invalid');
  }
  return parsed.data;
}

/** Per location, the lines that bring each target's on-hand back to it, from one read of the stock on hand. */
async function linesOf(ctx: JobContext, targets: StockTarget[]): Promise<Map<string, VarianceLine[]>> {
  const stock = await readStockOnHand(ctx.client);
  const out = new Map<string, VarianceLine[]>();
  for (const t of targets) {
    const onHand = stock.get(t.facilityUrl)?.get(t.productUrl) ?? 0;
    if (near(onHand, t.quantity)) continue;
    out.set(t.facilityUrl, [...(out.get(t.facilityUrl) ?? []), [t.productUrl, round(t.quantity - onHand)]]);
  }
  return out;
}

/**
 * A stock repair (`reconcile --repair --include-stock`): the on-hand of each target is read, and one variance per
 * location sets it back to the target. It sets, never adds: a repair run again (after a kill, or a lost answer)
 * reads the stock first and writes only what still differs.
 */
export async function repairStock(record: StockCountRecord, ctx: JobContext): Promise<JobResult> {
  const targets = targetsOf(record, ctx.fromService?.targets);
  const sk = stockKeys(ctx.keys);
  const locations = [...new Set(targets.map((t) => t.facilityUrl))];
  return withRedisLocks(
    ctx.redis,
    locations.map((f) => sk.locationLock(f)),
    async (lock) => {
      const lines = await linesOf(ctx, targets);
      const posted: string[] = [];
      for (const [facilityUrl, l] of lines) {
        lock.assertHeld();
        try {
          const v = await ctx.client.createVariance(varianceBody({ facilityUrl, countDate: today() }, l));
          posted.push(v.physicalInventoryUrl);
        } catch (err) {
          // Uncertain: the next attempt reads the stock again and posts only what still differs.
          if (isServiceError(err) && err.outcome !== 'not-applied')
            ctx.note(`repair variance at ${facilityUrl}: answer lost (${err.code})`);
          throw err;
        } finally {
          // Snapshots of the location are stale now (jobs/stock/stock-snapshot.ts).
          await ctx.redis.hincrby(sk.versions, facilityUrl, 1);
        }
      }
      const details = { countId: record.countId, variances: posted, lines: [...lines.values()].flat().length };
      if (!posted.length)
        return { outcome: 'unchanged', summary: `count ${record.countId}: stock already as counted (less sales); no write`, details };
      return {
        outcome: 'synced',
        summary: `count ${record.countId}: ${posted.length} variance${posted.length === 1 ? '' : 's'} set the stock back to the count`,
        details,
      };
    },
    { ttlMs: defaults.stockLocationLockMs, waitMs: defaults.stockLockWaitMs },
  );
}

/** The dry run of a stock repair: the same read, the variances it would post. */
export async function previewStockRepair(record: StockCountRecord, ctx: PreviewContext): Promise<PreviewResult> {
  const targets = targetsOf(record, ctx.fromService?.targets);
  const lines = await linesOf(ctx, targets);
  const names = new Map(targets.map((t) => [`${t.facilityUrl} ${t.productUrl}`, t.productId]));
  const calls: PlannedCall[] = [...lines].map(([facilityUrl, l]) => ({
    method: 'POST',
    path: `/${ctx.client.account}/api/inventoryvariance`,
    body: varianceBody({ facilityUrl, countDate: today() }, l),
    what:
      `variance dated ${varianceDate(today())} back to the count: ` +
      l.map(([p, q]) => `${names.get(`${facilityUrl} ${p}`) ?? p} ${q > 0 ? '+' : ''}${q}`).join(', '),
  }));
  if (!calls.length) return { outcome: 'unchanged', summary: `count ${record.countId}: stock already as counted; no call`, calls };
  return { outcome: 'writes', summary: `count ${record.countId}: ${calls.length} variance(s) back to the count`, calls };
}
