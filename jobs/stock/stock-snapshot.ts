import { randomBytes } from 'node:crypto';
import type { ServiceApi } from '../../src/client/service-api.js';
import type { RedisConnection as Redis, RedisKeys } from '../../src/redis/connection.js';
import { withRedisLock } from '../../src/redis/redis-lock.js';
import { stockKeys } from './stock-keys.js';

/** On-hand stock per location and product, as the inventory item collection sums it. */
export type StockOnHandMap = Map<string, Map<string, number>>;

export interface SnapshotDeps {
  client: ServiceApi;
  redis: Redis;
  keys: RedisKeys;
  /** Reads the inventory item collection summed per location and product (readStockOnHand). */
  readStock: (client: ServiceApi) => Promise<StockOnHandMap>;
  /** A snapshot older than this (from the start of its read) is not used. */
  maxAgeMs: number;
  /** How long a job may wait for another job's read, in ms. */
  readWaitMs: number;
  /** Life of the snapshot lock in ms (renewed while reading; a dead reader's lock frees after it). */
  lockTtlMs: number;
  note?: (message: string, data?: Record<string, unknown>) => void;
  /** A snapshot whose read started before this (epoch ms) is not used. Default: any young enough. */
  notBefore?: number;
}

export interface LocationStock {
  snapshotId: string;
  /** productUrl -> quantity on hand; absent means 0. */
  stock: Map<string, number>;
  /** True when this call read the collection. */
  read: boolean;
}

/** Extra life of the snapshot keys beyond their useful age, so a plan in progress never loses its part. */
const KEEP_MS = 60 * 60_000;
const HSET_BATCH = 1000;

/** The id of the current snapshot when it may serve this location: young enough and with every recorded variance. */
async function usableSnapshot(deps: SnapshotDeps, facilityUrl: string): Promise<string | undefined> {
  const sk = stockKeys(deps.keys);
  const [meta, version] = await Promise.all([deps.redis.hgetall(sk.snapshotMeta), deps.redis.hget(sk.versions, facilityUrl)]);
  if (!meta.id || !meta.readStartedAt) return undefined;
  if (Date.now() - Number(meta.readStartedAt) >= deps.maxAgeMs) return undefined;
  if (deps.notBefore !== undefined && Number(meta.readStartedAt) < deps.notBefore) return undefined;
  if ((meta[`v:${facilityUrl}`] ?? '0') !== (version ?? '0')) return undefined;
  return meta.id;
}

/** Reads the inventory item collection once and stores it as the current snapshot; answers its id. */
async function readSnapshot(deps: SnapshotDeps): Promise<string> {
  const sk = stockKeys(deps.keys);
  // Version copies are taken before the read: a variance recorded during the read makes its location stale.
  const versions = await deps.redis.hgetall(sk.versions);
  const readStartedAt = Date.now();
  const stock = await deps.readStock(deps.client);
  const id = `${readStartedAt.toString(36)}-${randomBytes(3).toString('hex')}`;
  const ttl = deps.maxAgeMs + KEEP_MS;
  let rows = 0;
  const pipe = deps.redis.pipeline();
  for (const [facilityUrl, products] of stock) {
    const key = sk.snapshotLocation(id, facilityUrl);
    let batch: Array<string | number> = [];
    for (const [productUrl, qty] of products) {
      batch.push(productUrl, qty);
      rows++;
      if (batch.length >= HSET_BATCH * 2) {
        pipe.hset(key, ...batch);
        batch = [];
      }
    }
    if (batch.length) pipe.hset(key, ...batch);
    pipe.pexpire(key, ttl + 60_000);
  }
  await pipe.exec();
  const meta: Record<string, string> = {
    id,
    readStartedAt: String(readStartedAt),
    readAt: String(Date.now()),
    locations: String(stock.size),
    pairs: String(rows),
  };
  for (const [loc, v] of Object.entries(versions)) meta[`v:${loc}`] = v;
  await deps.redis.multi().del(sk.snapshotMeta).hset(sk.snapshotMeta, meta).pexpire(sk.snapshotMeta, ttl).exec();
  deps.note?.('read on-hand stock for this stock sync run', {
    snapshotId: id,
    locations: stock.size,
    pairs: rows,
    ms: Date.now() - readStartedAt,
  });
  return id;
}

/**
 * One location's on-hand stock from the run's shared snapshot, reading the inventory item collection only when
 * no usable snapshot exists (one read serves every count of the run). Call while holding the location's lock.
 */
export async function locationStock(deps: SnapshotDeps, facilityUrl: string): Promise<LocationStock> {
  const sk = stockKeys(deps.keys);
  let id = await usableSnapshot(deps, facilityUrl);
  let read = false;
  if (!id) {
    id = await withRedisLock(
      deps.redis,
      sk.snapshotLock,
      async () => {
        const again = await usableSnapshot(deps, facilityUrl);
        if (again) return again;
        read = true;
        return readSnapshot(deps);
      },
      { waitMs: deps.readWaitMs, ttlMs: deps.lockTtlMs },
    );
  }
  const raw = await deps.redis.hgetall(sk.snapshotLocation(id, facilityUrl));
  const stock = new Map<string, number>();
  for (const [productUrl, qty] of Object.entries(raw)) stock.set(productUrl, Number(qty));
  return { snapshotId: id, stock, read };
}
