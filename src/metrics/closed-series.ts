import type { Gauge } from 'prom-client';
import type { DeploymentSummary } from '../queue/dispatch/deployment-summary.js';
import type { AccountSeries, Trouble } from './account-trouble.js';
import { deploymentSeries } from './deployment-series.js';

/**
 * The series in /metrics of accounts whose parts are closed in the process (no turn there, no feed): those the
 * deployment's summary lists in trouble (src/queue/dispatch/deployment-summary.ts), at most CLOSED_SHOWN_MAX, and
 * those named in METRICS_ACCOUNTS, at most CLOSED_SHOWN_MAX more; each read from Redis as `/metrics?account=NAME` reads
 * it (about 70 commands, all reads), at most CLOSED_READS_PER_SCRAPE a scrape, the others as last read. So a scrape's
 * cost does not grow with the accounts, closed or not.
 */

/** Closed accounts in trouble shown at most, and closed accounts named shown at most (METRICS_ACCOUNTS=*: the first). */
export const CLOSED_SHOWN_MAX = 50;
/** Closed accounts read from Redis at one scrape: those not read yet first, then those read longest ago. */
export const CLOSED_READS_PER_SCRAPE = 10;

/** The closed accounts to show, each with why (none: named in METRICS_ACCOUNTS). */
export function closedShown(
  summary: DeploymentSummary | undefined,
  closedNames: readonly string[],
  named: readonly string[] | '*',
): Map<string, Trouble[]> {
  const closed = new Set(closedNames);
  const shown = new Map<string, Trouble[]>();
  for (const t of summary?.trouble ?? []) if (closed.has(t.account) && shown.size < CLOSED_SHOWN_MAX) shown.set(t.account, t.reasons);
  let namedShown = 0;
  for (const name of named === '*' ? closedNames : named) {
    if (namedShown >= CLOSED_SHOWN_MAX) break;
    if (!closed.has(name)) continue;
    namedShown++;
    if (!shown.has(name)) shown.set(name, []);
  }
  return shown;
}

/** Reads the closed accounts' series for a scrape, keeping each one's last read. */
export function closedSeriesReader(o: { read(name: string): Promise<AccountSeries | undefined>; readsPerScrape?: number }) {
  const kept = new Map<string, { series: AccountSeries; scrape: number }>();
  let scrape = 0;
  return {
    /** The series of those of `names` read once at least (this scrape or before). */
    async read(names: readonly string[]): Promise<Map<string, AccountSeries>> {
      scrape++;
      const asked = new Set(names);
      for (const name of kept.keys()) if (!asked.has(name)) kept.delete(name);
      const turn = [...names]
        .sort((a, b) => (kept.get(a)?.scrape ?? -1) - (kept.get(b)?.scrape ?? -1))
        .slice(0, o.readsPerScrape ?? CLOSED_READS_PER_SCRAPE);
      await Promise.all(
        turn.map(async (name) => {
          // A read that failed (Redis away) keeps the last one.
          const series = await o.read(name).catch(() => undefined);
          if (series) kept.set(name, { series, scrape });
        }),
      );
      return new Map(
        names.flatMap((name): Array<[string, AccountSeries]> => {
          const k = kept.get(name);
          return k ? [[name, k.series]] : [];
        }),
      );
    },
  };
}

/**
 * At each scrape: the deployment's figures (from its summary) and the series of the closed accounts shown, each
 * troubled one's reasons set in `trouble` (isync_account_trouble); answers them and the names shown.
 */
export function deploymentAndClosed(
  o: {
    named: readonly string[] | '*';
    closed?: (name: string) => Promise<AccountSeries | undefined>;
    closedNames?: () => readonly string[];
    deployment?: () => Promise<DeploymentSummary | undefined>;
  },
  trouble: Gauge,
): () => Promise<{ parts: AccountSeries[]; shown: ReadonlySet<string> }> {
  const deployment = deploymentSeries();
  const reader = closedSeriesReader({ read: async (name) => o.closed?.(name) });
  return async () => {
    const summary = await o.deployment?.().catch(() => undefined);
    const closed = closedShown(summary, o.closedNames?.() ?? [], o.named);
    const series = await reader.read([...closed.keys()]);
    for (const [name, why] of closed) if (series.has(name)) for (const reason of why) trouble.set({ account: name, reason }, 1);
    return { parts: [await deployment.of(summary), ...series.values()], shown: new Set(series.keys()) };
  };
}
