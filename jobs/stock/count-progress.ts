import type { RedisConnection as Redis, RedisKeys } from '../../src/redis/connection.js';
import { ProgressHash } from '../../src/redis/progress-hash.js';
import { FencedWrite } from '../../src/redis/fenced-write.js';
import type { FencingLock } from '../../src/redis/redis-lock.js';
import { redisScript, runScript } from '../../src/redis/scripts.js';
import type { VarianceLine } from './count-plan.js';
import type { LeftOut } from './product-marks.js';
import { stockKeys } from './stock-keys.js';

/** planned: chunks may remain to post; the others are final (skipped: every product was left to newer counts). */
export type CountState = 'planned' | 'applied' | 'unchanged' | 'skipped';

/** A count's progress as stored in `stockKeys(keys).count(countId)` (docs/stock-sync.md, "Exactly once"). */
export interface CountProgress {
  countId: string;
  /** Hash of the record version this progress belongs to. */
  hash?: string;
  state?: CountState;
  facilityUrl?: string;
  countDate?: string;
  /** Arrival order of the plan (see CountRank). */
  seq?: number;
  snapshotId?: string;
  /** Number of products the count lists. */
  products: number;
  /** Number of chunks planned. */
  chunks: number;
  /** Lines of chunk i (dropped once the count is finished; a newer count may take lines out of an open plan). */
  lines: Map<number, VarianceLine[]>;
  /** Chunk i was about to be posted (epoch ms); no answer recorded yet. */
  intents: Map<number, number>;
  /** Chunk i applied, with the variance URL ('' when the service did not say). */
  applied: Map<number, string>;
  /** productUrl -> the newer count this count leaves the product to (at its plan, or taken out of it later). */
  left: Map<string, LeftOut>;
  /** Hashes of earlier versions of this countId that a correction replaced. */
  retired: Set<string>;
}

/** Field prefix of a product left to a newer count: `left:{productUrl}` -> LeftOut JSON. */
export const LEFT = 'left:';
/** How long finished progress is kept (re-deliveries of the same count are recognised meanwhile). */
export const KEEP_MS = 90 * 24 * 3600_000;
/** How long the URLs of applied variances are kept per location and date, for settling lost answers. */
const KNOWN_MS = 40 * 24 * 3600_000;

export async function loadProgress(redis: Redis, keys: RedisKeys, countId: string): Promise<CountProgress> {
  const raw = await new ProgressHash(redis, stockKeys(keys).count(countId)).read();
  const p: CountProgress = {
    countId,
    hash: raw.hash,
    state: raw.state as CountState | undefined,
    facilityUrl: raw.facilityUrl,
    countDate: raw.countDate,
    seq: raw.seq === undefined ? undefined : Number(raw.seq),
    snapshotId: raw.snapshotId,
    products: Number(raw.products ?? 0),
    chunks: Number(raw.chunks ?? 0),
    lines: new Map(),
    intents: new Map(),
    applied: new Map(),
    left: new Map(),
    retired: new Set(),
  };
  for (const [field, value] of Object.entries(raw)) {
    if (field.startsWith(LEFT)) {
      p.left.set(field.slice(LEFT.length), JSON.parse(value) as LeftOut);
      continue;
    }
    const [kind, idx] = field.split(':', 2) as [string, string | undefined];
    if (idx === undefined) continue;
    if (kind === 'chunk') p.lines.set(Number(idx), JSON.parse(value) as VarianceLine[]);
    else if (kind === 'intent') p.intents.set(Number(idx), Number(value));
    else if (kind === 'applied') p.applied.set(Number(idx), value);
    else if (kind === 'retired') p.retired.add(idx);
  }
  return p;
}

/** Chunk `chunk` is about to be posted: written only while the location's lock is still this job's (LockLostError). */
export async function markIntent(redis: Redis, keys: RedisKeys, countId: string, chunk: number, lock: FencingLock): Promise<void> {
  await new FencedWrite(lock).hset(stockKeys(keys).count(countId), { [`intent:${chunk}`]: String(Date.now()) }).exec(redis);
}

/** The chunk surely did not apply: forget the intent so the chunk is posted again (under the lock, as markIntent). */
export async function dropIntent(redis: Redis, keys: RedisKeys, countId: string, chunk: number, lock: FencingLock): Promise<void> {
  await new FencedWrite(lock).call('HDEL', stockKeys(keys).count(countId), `intent:${chunk}`).exec(redis);
}

// Records chunk ARGV[1] applied (URL ARGV[2]), remembers the URL, bumps the location version and patches the
// plan's snapshot when it is still current and in step. All or nothing; a second record of a chunk is a no-op.
const RECORD_APPLIED = redisScript(
  'countRecordApplied',
  `
if redis.call('HEXISTS', KEYS[1], 'applied:' .. ARGV[1]) == 1 then return -1 end
redis.call('HSET', KEYS[1], 'applied:' .. ARGV[1], ARGV[2])
redis.call('HDEL', KEYS[1], 'intent:' .. ARGV[1])
if ARGV[2] ~= '' then
  redis.call('SADD', KEYS[5], ARGV[2])
  redis.call('PEXPIRE', KEYS[5], ARGV[5])
end
local v = redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
if redis.call('HGET', KEYS[3], 'id') == ARGV[4] then
  local copy = tonumber(redis.call('HGET', KEYS[3], 'v:' .. ARGV[3]) or '0')
  if copy == v - 1 then
    for i = 6, #ARGV, 2 do redis.call('HINCRBYFLOAT', KEYS[4], ARGV[i], ARGV[i + 1]) end
    redis.call('HSET', KEYS[3], 'v:' .. ARGV[3], v)
    local ttl = redis.call('PTTL', KEYS[3])
    if ttl > 0 then redis.call('PEXPIRE', KEYS[4], ttl + 60000) end
    return 1
  end
end
return 0`,
);

/** Records a chunk as applied (see RECORD_APPLIED); answers whether the snapshot was patched. */
export async function recordApplied(
  redis: Redis,
  keys: RedisKeys,
  p: { countId: string; facilityUrl: string; countDate: string; snapshotId: string },
  chunk: number,
  url: string,
  lines: VarianceLine[],
): Promise<boolean> {
  const sk = stockKeys(keys);
  const args: Array<string | number> = [chunk, url, p.facilityUrl, p.snapshotId, KNOWN_MS];
  for (const [productUrl, q] of lines) args.push(productUrl, q);
  const r = await runScript(redis, RECORD_APPLIED, [
    5,
    stockKeys(keys).count(p.countId),
    sk.versions,
    sk.snapshotMeta,
    sk.snapshotLocation(p.snapshotId, p.facilityUrl),
    sk.variances(p.facilityUrl, p.countDate),
    ...args,
  ]);
  return r === 1;
}

/** Ends a count's plan: final state, lines dropped (their URLs stay), no longer one of the location's open counts. */
export async function finishCount(redis: Redis, keys: RedisKeys, p: CountProgress, state: Exclude<CountState, 'planned'>): Promise<void> {
  const key = stockKeys(keys).count(p.countId);
  const tx = redis.multi().hset(key, 'state', state);
  const chunkFields = [...p.lines.keys()].map((i) => `chunk:${i}`);
  if (chunkFields.length) tx.hdel(key, ...chunkFields);
  tx.pexpire(key, KEEP_MS);
  if (p.facilityUrl) tx.srem(stockKeys(keys).open(p.facilityUrl), p.countId);
  await tx.exec();
}

/** The location of an unfinished earlier version of a count when it is not `facilityUrl` (a correction moved it). */
export async function unfinishedElsewhere(
  redis: Redis,
  keys: RedisKeys,
  countId: string,
  hash: string,
  facilityUrl: string,
): Promise<string | undefined> {
  const [state, at, was] = await new ProgressHash(redis, stockKeys(keys).count(countId)).fields('state', 'facilityUrl', 'hash');
  return state === 'planned' && at && at !== facilityUrl && was !== hash ? at : undefined;
}

export async function knownVariances(redis: Redis, keys: RedisKeys, facilityUrl: string, countDate: string): Promise<Set<string>> {
  return new Set(await redis.smembers(stockKeys(keys).variances(facilityUrl, countDate)));
}
