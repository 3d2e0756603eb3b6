/** A catalog held in memory, as the budget sees it: `drop()` lets its index go unless it is in use (answers false then). */
export interface HeldCatalog {
  drop(): boolean;
}

export interface CatalogBudgetOptions {
  /** The most estimated bytes every catalog of the process holds together (CATALOG_CACHE_MB); the one in use stays. */
  maxBytes: number;
  /** A catalog not used this long is dropped, in ms (CATALOG_IDLE_SECONDS); 0: never for idleness. */
  idleMs: number;
  /** Epoch ms now; injectable for tests. Default: Date.now. */
  now?: () => number;
}

interface Entry {
  bytes: number;
  usedAt: number;
}

/**
 * The process's one bound on catalog memory, shared by every account's Catalog: each loaded catalog is an entry with
 * its estimated size, least recently used first. When the total passes maxBytes the least recently used whole
 * catalogs are dropped (never the one just loaded or used); a catalog idle for idleMs is dropped too. A dropped
 * catalog is loaded again on its next use, as a first load is (src/catalog/catalog.ts). A sweep runs while any is held.
 */
export class CatalogBudget {
  private readonly entries = new Map<HeldCatalog, Entry>();
  private readonly now: () => number;
  private total = 0;
  private timer?: NodeJS.Timeout;

  constructor(private readonly o: CatalogBudgetOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Estimated bytes held by every catalog now. */
  get usedBytes(): number {
    return this.total;
  }

  /** Catalogs held now. */
  get held(): number {
    return this.entries.size;
  }

  /** A catalog loaded (or replaced by a newer copy) with this estimated size: it is the most recently used. */
  hold(c: HeldCatalog, bytes: number): void {
    this.total += bytes - (this.entries.get(c)?.bytes ?? 0);
    this.entries.delete(c);
    this.entries.set(c, { bytes, usedAt: this.now() });
    this.fit();
    this.arm();
  }

  /** A catalog answered a lookup: it becomes the most recently used. */
  touch(c: HeldCatalog): void {
    const e = this.entries.get(c);
    if (!e) return;
    e.usedAt = this.now();
    this.entries.delete(c);
    this.entries.set(c, e);
  }

  /** A catalog that let its index go (dropped, or closed). */
  release(c: HeldCatalog): void {
    const e = this.entries.get(c);
    if (!e) return;
    this.total -= e.bytes;
    this.entries.delete(c);
    if (this.entries.size === 0) this.disarm();
  }

  /** Drops the catalogs idle past idleMs, then the least recently used while over the bound. */
  sweep(): void {
    if (this.o.idleMs > 0) {
      const before = this.now() - this.o.idleMs;
      for (const [c, e] of [...this.entries]) if (e.usedAt <= before) this.dropOne(c);
    }
    this.fit();
  }

  /** Stops the sweep and lets every catalog go (the process is stopping). */
  close(): void {
    for (const c of [...this.entries.keys()]) this.dropOne(c);
    this.disarm();
  }

  /** Over the bound: drops from the least recently used, keeping the most recent and any in use. */
  private fit(): void {
    if (this.total <= this.o.maxBytes) return;
    const newest = [...this.entries.keys()].at(-1);
    for (const c of [...this.entries.keys()]) {
      if (this.total <= this.o.maxBytes) return;
      if (c !== newest) this.dropOne(c);
    }
  }

  private dropOne(c: HeldCatalog): void {
    if (c.drop()) this.release(c);
  }

  private arm(): void {
    if (this.timer || this.o.idleMs <= 0) return;
    const every = Math.min(60_000, Math.max(50, Math.floor(this.o.idleMs / 4)));
    this.timer = setInterval(() => this.sweep(), every);
    this.timer.unref();
  }

  private disarm(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
