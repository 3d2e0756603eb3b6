import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import { defaults } from '../../config/defaults.js';
import type { ServiceApi } from '../client/service-api.js';
import type { Logger } from '../log/logger.js';
import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import type { CatalogBudget, HeldCatalog } from './catalog-budget.js';
import { CatalogIndex, snapshotOf, type CatalogSnapshot } from './catalog-index.js';
import type { CatalogApi, CatalogProduct, FacilityLookup } from './types.js';

export interface CatalogOptions {
  client: ServiceApi;
  redis: Redis;
  keys: RedisKeys;
  /** Minimum seconds between two refreshes caused by a miss, across all processes (0: every miss refreshes). */
  refreshSeconds: number;
  logger?: Logger;
  /** How long a miss waits for a refresh another process is running, in ms. Default 150 000. */
  peerWaitMs?: number;
  /** The process's bound on catalog memory, shared by every account's catalog (catalog-budget.ts). Default: none, held for good. */
  budget?: CatalogBudget;
}

const snapshotSchema = z.object({
  fetchedAt: z.number(),
  products: z.array(z.object({ productId: z.string(), productUrl: z.string(), statusId: z.string().optional() })),
  facilities: z.array(
    z.object({
      facilityUrl: z.string(),
      facilityId: z.string().optional(),
      facilityName: z.string().optional(),
      parentFacilityUrl: z.string().optional(),
    }),
  ),
});

const PEER_POLL_MS = 250;
/** Shortest interval between two background comparisons with the Redis copy. */
const MIN_RESYNC_MS = 10_000;

/**
 * Products and facilities of the account, held in memory per process (a hit is a Map read, no Redis), shared
 * through Redis (a hash: `json`, the snapshot, and `fetchedAt`), refreshed from the service on a miss at most once every
 * `refreshSeconds` across all processes (a lock key whose life is that interval). Under a budget, the memory copy is
 * dropped when the process's catalogs pass its bound or this one is idle, and loaded again on the next use as a first load.
 */
export class Catalog implements CatalogApi, HeldCatalog {
  private readonly o: CatalogOptions;
  private readonly refreshMs: number;
  private index?: CatalogIndex;
  private loading?: Promise<CatalogIndex>;
  private missRefreshing?: Promise<void>;
  private forcing?: Promise<void>;
  private comparedAt = 0;
  /** Lookups running now: a catalog in use is not dropped. */
  private inUse = 0;

  constructor(opts: CatalogOptions) {
    this.o = opts;
    this.refreshMs = Math.max(0, opts.refreshSeconds) * 1000;
  }

  product(productId: string): Promise<CatalogProduct | undefined> {
    return this.resolve(
      (ix) => ix.product(productId),
      (p) => p === undefined,
    );
  }

  products(productIds: string[]): Promise<Map<string, CatalogProduct>> {
    return this.resolve(
      (ix) => {
        const out = new Map<string, CatalogProduct>();
        for (const id of productIds) {
          const p = ix.product(id);
          if (p) out.set(id, p);
        }
        return out;
      },
      (found) => found.size < new Set(productIds).size,
    );
  }

  facility(nameOrUrl: string): Promise<FacilityLookup> {
    return this.resolve(
      (ix) => ix.facility(nameOrUrl),
      // Only an unknown name is worth a refresh; an ambiguous one stays ambiguous.
      (found) => !found.ok && found.reason === 'unknown',
    );
  }

  productIdByUrl(productUrl: string): Promise<string | undefined> {
    return this.resolve(
      (ix) => ix.productIdByUrl(productUrl),
      (id) => id === undefined,
    );
  }

  /**
   * Fetches now; the fetch counts as a miss refresh (the lock kept for refreshSeconds), so that a lookup that misses
   * right after it, in any process, takes its copy rather than fetching again.
   */
  async refresh(): Promise<void> {
    this.forcing ??= (async () => {
      const startedAt = Date.now();
      await this.fetchAndStore(startedAt);
      const lock = this.refreshMs > 0 ? await this.o.redis.get(this.o.keys.catalogLock()) : 'load:';
      if (!lock?.startsWith('load:')) await this.o.redis.set(this.o.keys.catalogLock(), `${startedAt}:${token()}`, 'PX', this.refreshMs);
    })().finally(() => {
      this.forcing = undefined;
    });
    await this.forcing;
  }

  /** Whether the memory copy is held now (a lookup answers from it without Redis). */
  get inMemory(): boolean {
    return this.index !== undefined;
  }

  /** Lets the memory copy go unless a lookup, load or refresh is running (the budget asks); answers whether it went. */
  drop(): boolean {
    if (this.inUse > 0 || this.loading || this.missRefreshing || this.forcing) return false;
    this.index = undefined;
    return true;
  }

  /** Lets the memory copy go and leaves the budget (the account stops). */
  close(): void {
    this.index = undefined;
    this.o.budget?.release(this);
  }

  /** Looks up in memory (loaded first if it is not); on a miss, refreshes (as the rules allow) and looks again. */
  private async resolve<T>(find: (ix: CatalogIndex) => T, missed: (value: T) => boolean): Promise<T> {
    this.inUse++;
    try {
      const asked = this.index ? undefined : Date.now();
      const ix = this.index ?? (await this.ready());
      this.o.budget?.touch(this);
      const value = find(ix);
      if (!missed(value)) return this.fresh(value);
      // A copy fetched after the question was asked is as fresh as a refresh would make it.
      if (asked !== undefined && ix.fetchedAt >= asked) return value;
      await this.afterMiss();
      return find(this.index ?? ix);
    } finally {
      this.inUse--;
    }
  }

  /** The first use in this process: the Redis copy, else one load from the service shared by all processes. */
  private ready(): Promise<CatalogIndex> {
    this.loading ??= (async () => {
      const stored = await this.readStored();
      if (stored) this.adopt(stored);
      else await this.coordinated('load');
      return this.index!;
    })().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  /** One refresh attempt per miss wave in this process, however many lookups missed at once. */
  private afterMiss(): Promise<void> {
    this.missRefreshing ??= this.coordinated('miss').finally(() => {
      this.missRefreshing = undefined;
    });
    return this.missRefreshing;
  }

  /**
   * Fetches the catalog unless another process has a newer copy, is fetching it now, or (for a miss) fetched it
   * because of a miss less than refreshSeconds ago. The lock says which: `{startedAt}:{token}`, kept for
   * refreshSeconds after a miss refresh; `load:{startedAt}:{token}` while a first load runs, deleted after it.
   */
  private async coordinated(why: 'load' | 'miss'): Promise<void> {
    const { redis, keys } = this.o;
    const lockKey = keys.catalogLock();
    const peerWaitMs = this.o.peerWaitMs ?? defaults.catalogPeerWaitMs;
    const deadline = Date.now() + peerWaitMs;
    for (;;) {
      const storedAt = await this.storedAt();
      if (storedAt !== undefined && storedAt > (this.index?.fetchedAt ?? -Infinity)) {
        const stored = await this.readStored();
        if (stored) return this.adopt(stored);
      }
      const startedAt = Date.now();
      const mine = `${why === 'load' ? 'load:' : ''}${startedAt}:${token()}`;
      const unlocked = why === 'miss' && this.refreshMs === 0;
      if (unlocked || (await redis.set(lockKey, mine, 'PX', why === 'load' ? peerWaitMs : this.refreshMs, 'NX'))) {
        try {
          await this.fetchAndStore(startedAt);
        } catch (err) {
          // Let the next miss try again instead of blocking refreshes for refreshSeconds.
          if (!unlocked) await this.release(mine);
          throw err;
        }
        if (why === 'load') await this.release(mine);
        return;
      }
      const lock = await redis.get(lockKey);
      if (lock === null) continue;
      const loading = lock.startsWith('load:');
      const lockStartedAt = Number((loading ? lock.slice(5) : lock).split(':')[0]);
      if (!loading && storedAt === undefined) {
        // A miss refresh was recent but its copy is gone (key deleted): nothing to wait for.
        return this.fetchAndStore(Date.now());
      }
      if (!loading && this.index && storedAt !== undefined && storedAt >= lockStartedAt) {
        // The last miss refresh is done and this process has its copy: the miss stands until refreshSeconds pass.
        return;
      }
      if (Date.now() > deadline) {
        throw new Error(
          `catalog: another process has been fetching the catalog for over ${Math.round(peerWaitMs / 1000)} s; try again later`,
        );
      }
      await delay(PEER_POLL_MS);
    }
  }

  private async release(value: string): Promise<void> {
    const { redis, keys } = this.o;
    if ((await redis.get(keys.catalogLock())) === value) await redis.del(keys.catalogLock());
  }

  private async fetchAndStore(fetchedAt: number): Promise<void> {
    const t0 = Date.now();
    const [products, facilities] = await Promise.all([this.o.client.listProducts(), this.o.client.listFacilities()]);
    const snapshot = snapshotOf(fetchedAt, products, facilities);
    await this.o.redis.hset(this.o.keys.catalog(), 'json', JSON.stringify(snapshot), 'fetchedAt', String(fetchedAt));
    this.adopt(snapshot);
    this.o.logger?.info(
      { products: products.length, facilities: facilities.length, ms: Date.now() - t0 },
      'catalog refreshed from the service',
    );
  }

  /** When the copy in Redis was fetched (cheap: the copy itself is not read). */
  private async storedAt(): Promise<number | undefined> {
    const at = await this.o.redis.hget(this.o.keys.catalog(), 'fetchedAt');
    return at === null ? undefined : Number(at);
  }

  private async readStored(): Promise<CatalogSnapshot | undefined> {
    const raw = await this.o.redis.hget(this.o.keys.catalog(), 'json');
    if (raw === null) return undefined;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      json = undefined;
    }
    const parsed = snapshotSchema.safeParse(json);
    if (parsed.success) return parsed.data;
    this.o.logger?.warn({ key: this.o.keys.catalog() }, 'catalog: the cached copy in Redis is unreadable; it will be fetched again');
    return undefined;
  }

  private adopt(snapshot: CatalogSnapshot): void {
    if (this.index && this.index.fetchedAt > snapshot.fetchedAt) return;
    this.index = new CatalogIndex(snapshot);
    this.comparedAt = Date.now();
    this.o.budget?.hold(this, this.index.estimatedBytes);
  }

  /** Passes a hit through; now and then picks up, in the background, a newer copy another process stored. */
  private fresh<T>(value: T): T {
    const now = Date.now();
    if (now - this.comparedAt >= Math.max(this.refreshMs, MIN_RESYNC_MS)) {
      this.comparedAt = now;
      const have = this.index?.fetchedAt ?? -Infinity;
      this.storedAt()
        .then((at) => (at !== undefined && at > have ? this.readStored() : undefined))
        .then(
          // A copy dropped meanwhile stays dropped: the next use loads it.
          (s) => s && this.index && this.adopt(s),
          (err: unknown) => this.o.logger?.warn({ err }, 'catalog: could not compare with the cached copy in Redis'),
        );
    }
    return value;
  }
}

function token(): string {
  return randomBytes(6).toString('hex');
}
