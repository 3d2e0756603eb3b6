import type { RedisConnection as Redis } from '../../src/redis/connection.js';
import type { RedisKeys } from '../../src/redis/connection.js';
import { FencedWrite } from '../../src/redis/fenced-write.js';
import type { FencingLock } from '../../src/redis/redis-lock.js';
import type { VarianceLine } from './count-plan.js';
import { KEEP_MS, LEFT } from './count-progress.js';
import type { LeftOut, ProductMark } from './product-marks.js';
import { stockKeys } from './stock-keys.js';

export interface NewPlan {
  countId: string;
  hash: string;
  facilityUrl: string;
  countDate: string;
  seq: number;
  snapshotId: string;
  /** Number of products the count lists. */
  products: number;
  chunks: VarianceLine[][];
  /** Hashes of replaced versions to remember. */
  retired: Iterable<string>;
  /** Products left to newer counts. */
  left: Map<string, LeftOut>;
  /** The marks of the products this count sets (productUrl -> mark). */
  marks: Map<string, ProductMark>;
}

/** What a plan changes besides its own progress: the open counts it takes lines from, the marks it gives back. */
export interface PlanEdits {
  /** Open counts of the location: their unposted chunks without the lines this plan took, and why. */
  taken: Array<{ countId: string; chunks: Map<number, VarianceLine[]>; left: Map<string, LeftOut> }>;
  /** Marks of an earlier version's dropped lines, given back (undefined: deleted), per location. */
  restore: Array<{ facilityUrl: string; marks: Map<string, string | undefined> }>;
  /** Open-set members to forget: an earlier version planned at another location, members whose plan is gone. */
  dropOpen: Array<{ facilityUrl: string; countId: string }>;
}

/**
 * Writes a count's plan with everything that depends on it, in one script that runs only while the location's lock is
 * still this job's (src/redis/fenced-write.ts): its progress (a plan without chunks is finished at once: unchanged, or
 * skipped when it sets no product), the marks of the products it sets, its place among the location's open counts, the
 * lines it takes from other open counts, and the marks an earlier version gives back. A crash leaves all of it or none;
 * a lock lost meanwhile (a process paused, a write held in a reconnecting connection) leaves none: LockLostError.
 */
export async function writePlan(redis: Redis, keys: RedisKeys, plan: NewPlan, edits: PlanEdits, lock: FencingLock): Promise<void> {
  const sk = stockKeys(keys);
  const key = stockKeys(keys).count(plan.countId);
  const fields: Record<string, string> = {
    hash: plan.hash,
    state: plan.chunks.length ? 'planned' : plan.marks.size ? 'unchanged' : 'skipped',
    facilityUrl: plan.facilityUrl,
    countDate: plan.countDate,
    seq: String(plan.seq),
    snapshotId: plan.snapshotId,
    products: String(plan.products),
    chunks: String(plan.chunks.length),
    differences: String(plan.chunks.reduce((n, c) => n + c.length, 0)),
  };
  plan.chunks.forEach((lines, i) => (fields[`chunk:${i}`] = JSON.stringify(lines)));
  for (const h of plan.retired) fields[`retired:${h}`] = '1';
  for (const [url, l] of plan.left) fields[`${LEFT}${url}`] = JSON.stringify(l);
  const tx = new FencedWrite(lock).call('DEL', key).hset(key, fields).call('PEXPIRE', key, KEEP_MS);

  for (const r of edits.restore) {
    const gone = [...r.marks].filter(([, v]) => v === undefined).map(([url]) => url);
    const back = [...r.marks].filter((e): e is [string, string] => e[1] !== undefined);
    tx.each('HDEL', sk.marks(r.facilityUrl), gone);
    if (back.length) tx.hset(sk.marks(r.facilityUrl), Object.fromEntries(back));
  }
  if (plan.marks.size) tx.hset(sk.marks(plan.facilityUrl), Object.fromEntries([...plan.marks].map(([url, m]) => [url, JSON.stringify(m)])));

  for (const t of edits.taken) {
    const f: Record<string, string> = {};
    for (const [i, lines] of t.chunks) f[`chunk:${i}`] = JSON.stringify(lines);
    for (const [url, l] of t.left) f[`${LEFT}${url}`] = JSON.stringify(l);
    if (Object.keys(f).length) tx.hset(stockKeys(keys).count(t.countId), f);
  }
  for (const d of edits.dropOpen) tx.call('SREM', sk.open(d.facilityUrl), d.countId);
  if (plan.chunks.length) tx.call('SADD', sk.open(plan.facilityUrl), plan.countId);
  else tx.call('SREM', sk.open(plan.facilityUrl), plan.countId);
  await tx.exec(redis);
}
