import type { Registry } from 'prom-client';
import type { AccountSeries } from './account-trouble.js';

type Json = AccountSeries[number];

/** An account of the process: its name and its registry of the program's metrics. */
export interface AccountRegistry {
  name: string;
  registry: Registry;
}

/** A metric read from Redis at scrape time (prom-client calls its `collect` before each read); the others live in the process. */
const readsRedis = (metric: object) => typeof (metric as { collect?: unknown }).collect === 'function';

/**
 * Reads the accounts' series for a scrape, in a time that does not grow past `readsPerScrape` accounts: the figures the
 * process keeps (jobs, calls, waits) of every account each time, and the figures read from Redis (queues, holds, feed,
 * budgets) of the accounts asked for (those shown) and of `readsPerScrape` others in turn, the rest as they were last
 * read (at most `accounts / readsPerScrape` scrapes ago; not at all before their first turn).
 */
export function accountSeriesReader(o: { readsPerScrape: number }) {
  const lastRead = new WeakMap<Registry, Map<string, Json>>();
  let cursor = 0;

  /** One account's series, labelled with its name as its registry's getMetricsAsJSON() labels them. */
  async function read(a: AccountRegistry, fresh: boolean): Promise<Json[]> {
    const kept = fresh ? undefined : lastRead.get(a.registry);
    const reads = new Map<string, Json>();
    const series = await Promise.all(
      a.registry.getMetricsAsArray().map(async (m): Promise<Json | undefined> => {
        // Not read yet (the process just started, or the account): its turn comes within accounts / readsPerScrape scrapes.
        if (readsRedis(m) && !fresh && !kept) return undefined;
        const old = readsRedis(m) ? kept?.get(m.name) : undefined;
        if (old) return old;
        // What getMetricsAsArray() holds are the metrics themselves (its type says less), as getMetricsAsJSON() reads them.
        const got = await (m as unknown as { get(): Promise<Json> }).get();
        const labelled = { ...got, values: got.values.map((v) => ({ ...v, labels: { ...v.labels, account: a.name } })) };
        if (readsRedis(m)) reads.set(m.name, labelled);
        return labelled;
      }),
    );
    if (fresh) lastRead.set(a.registry, reads);
    return series.filter((m): m is Json => m !== undefined);
  }

  return {
    /** Every account's series; those of `fresh` and of the next in turn read from Redis now. */
    async read(accounts: readonly AccountRegistry[], fresh: ReadonlySet<string>): Promise<Json[][]> {
      const n = accounts.length;
      const turn = new Set<number>();
      for (let i = 0; i < Math.min(n, o.readsPerScrape); i++) turn.add((cursor + i) % n);
      cursor = n === 0 ? 0 : (cursor + o.readsPerScrape) % n;
      return Promise.all(accounts.map((a, i) => read(a, turn.has(i) || fresh.has(a.name))));
    },
  };
}
