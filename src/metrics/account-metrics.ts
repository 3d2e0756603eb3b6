import { AggregatorRegistry, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { accountSeriesReader, type AccountRegistry } from './account-series.js';
import { countsOf, totalsOf } from './account-totals.js';
import { troubleWatch, type AccountSeries, type Trouble, type TroubleOptions } from './account-trouble.js';
import { deploymentAndClosed } from './closed-series.js';
import type { DeploymentSummary } from '../queue/dispatch/deployment-summary.js';

/**
 * /metrics of a process running several accounts (docs/monitoring.md, "Many accounts"): the deployment's totals (each
 * program series summed over the accounts, or their largest for a state or a time, as the metric's `aggregator` says,
 * without `account`), the process's own series (CPU, memory, event loop), and the full series of only some accounts,
 * labelled `account`: those METRICS_ACCOUNTS names and those in trouble (src/metrics/account-trouble.ts), at most
 * `troubledMax` of these. Besides, the deployment's figures (`isync_deployment_*`, every account open or closed, from
 * the sweep's summary: `deployment`) and the series of accounts closed in the process that the summary lists in
 * trouble or METRICS_ACCOUNTS names (src/metrics/closed-series.ts). So the series do not grow with healthy idle
 * accounts, and every account's are one request away: `/metrics?account=NAME` (`account`; an account whose parts are
 * closed, from Redis: `closed`).
 */
export interface AccountMetrics {
  contentType: Registry['contentType'];
  metrics(): Promise<string>;
  /** One account's full series (and its pushes'), or undefined when no account of this process has the name. */
  account(name: string): Promise<string | undefined>;
  /**
   * An account that stops (removed or restarted): its counts stay in the totals, so that a total never goes down (a
   * rule's increase() would take that for a restart of the counter).
   */
  retire(registry: Registry): Promise<void>;
}

export interface AccountMetricsOptions extends Pick<TroubleOptions, 'lagSeconds'> {
  /** The accounts running, each with its registry (series labelled `account`). */
  accounts: () => readonly AccountRegistry[];
  /** Registries of the process whose series carry `account` themselves (the push receiver's), treated alike. */
  shared?: () => readonly Registry[];
  /** Accounts whose series are always shown (METRICS_ACCOUNTS): names, or '*' for every one. */
  named: readonly string[] | '*';
  /** At most this many accounts in trouble shown (the first by name), whatever their number. */
  troubledMax?: number;
  /**
   * The series of an account of the process whose parts are closed (no registry in `accounts`), read from Redis for
   * `/metrics?account=NAME`; undefined when the process has no account of the name.
   */
  closed?: (name: string) => Promise<AccountSeries | undefined>;
  /** The accounts of the process whose parts are closed (their series, when shown, read through `closed`). */
  closedNames?: () => readonly string[];
  /** The deployment's summary, the sweep's (src/queue/dispatch/deployment-summary.ts), read once a scrape. */
  deployment?: () => Promise<DeploymentSummary | undefined>;
  /** Accounts whose figures are read from Redis at a scrape, besides those shown (src/metrics/account-series.ts). */
  readsPerScrape?: number;
  now?: () => number;
}

/** Accounts in trouble shown at most, so that a trouble of every account (Redis full) does not multiply the series. */
export const TROUBLED_SHOWN_MAX = 100;
/**
 * Accounts whose queues, holds, feeds and budgets are read from Redis at one scrape, besides those shown: the others'
 * are as read at most `accounts / READS_PER_SCRAPE` scrapes ago, so that a scrape's time does not grow past them.
 */
export const READS_PER_SCRAPE = 500;
/** How long an account's series stay shown after its trouble: the longest window of the shipped rules' increase(). */
export const TROUBLE_LINGER_MS = 60 * 60_000;

type Json = AccountSeries[number];

/** The values of series whose `account` label `keep` takes (of a registry whose series carry it, the receiver's). */
function only(series: AccountSeries, keep: (account: unknown) => boolean): Json[] {
  return series.map((m) => ({ ...m, values: m.values.filter((v) => keep(v.labels.account)) })).filter((m) => m.values.length > 0);
}

/** The deployment's own gauges: accounts running, in trouble and shown, and why each shown one is. */
function deploymentGauges() {
  const registry = new Registry();
  const accounts = new Gauge({
    name: 'isync_accounts',
    help: 'Accounts this process runs (state="running"), those in trouble (troubled) and those whose own series /metrics shows (shown).',
    labelNames: ['state'],
    registers: [registry],
  });
  const trouble = new Gauge({
    name: 'isync_account_trouble',
    help: 'Why an account in trouble has its own series in /metrics (1 per reason, docs/monitoring.md).',
    labelNames: ['account', 'reason'],
    registers: [registry],
  });
  return { registry, accounts, trouble };
}

export function accountMetrics(o: AccountMetricsOptions): AccountMetrics {
  const processRegistry = new Registry();
  collectDefaultMetrics({ register: processRegistry });
  const own = deploymentGauges();
  const watch = troubleWatch({ lagSeconds: o.lagSeconds, lingerMs: TROUBLE_LINGER_MS, now: o.now });
  const troubledMax = o.troubledMax ?? TROUBLED_SHOWN_MAX;
  const reader = accountSeriesReader({ readsPerScrape: o.readsPerScrape ?? READS_PER_SCRAPE });
  const deploymentParts = deploymentAndClosed(o, own.trouble);
  let shownBefore = new Set<string>();
  /** The counts of the accounts that stopped, summed. */
  let retired: Json[] = [];
  const registryOf = (name: string) => o.accounts().find((a) => a.name === name)?.registry;

  /** Which accounts are shown, and why the troubled ones are; the deployment's gauges set. */
  function pick(accounts: ReadonlyArray<{ name: string; series: AccountSeries }>): Set<string> {
    const troubled: Array<{ name: string; why: Trouble[] }> = [];
    for (const a of accounts) {
      const why = watch.judge(a.name, a.series);
      if (why.length) troubled.push({ name: a.name, why });
    }
    watch.scraped(new Set(accounts.map((a) => a.name)));
    troubled.sort((a, b) => a.name.localeCompare(b.name));
    const shownTroubled = troubled.slice(0, troubledMax);
    const shown = new Set(o.named === '*' ? accounts.map((a) => a.name) : o.named.filter((n) => accounts.some((a) => a.name === n)));
    own.trouble.reset();
    for (const t of shownTroubled) {
      shown.add(t.name);
      for (const reason of t.why) own.trouble.set({ account: t.name, reason }, 1);
    }
    own.accounts.set({ state: 'running' }, accounts.length);
    own.accounts.set({ state: 'troubled' }, troubled.length);
    own.accounts.set({ state: 'shown' }, shown.size);
    return shown;
  }

  return {
    contentType: processRegistry.contentType,
    async metrics() {
      const running = o.accounts();
      const [proc, series, shared] = await Promise.all([
        processRegistry.metrics(),
        // Those shown are read whole at each scrape (METRICS_ACCOUNTS=*: every one, as before issue 56).
        reader.read(running, o.named === '*' ? new Set(running.map((a) => a.name)) : new Set([...shownBefore, ...o.named])),
        Promise.all((o.shared?.() ?? []).map((r) => r.getMetricsAsJSON())),
      ]);
      const shown = pick(running.map((a, i) => ({ name: a.name, series: series[i]! })));
      shownBefore = shown;
      // After pick(), which resets the reasons: those of the closed accounts shown are set beside.
      const closed = await deploymentParts();
      own.accounts.set({ state: 'shown' }, shown.size + closed.shown.size);
      const totals = totalsOf([...series, ...shared, retired]);
      const parts = [totals, await own.registry.getMetricsAsJSON(), ...closed.parts];
      running.forEach((a, i) => {
        if (shown.has(a.name)) parts.push(series[i]!);
      });
      // The receiver's `(unknown)` and `(none)` (a push naming no account it has) always: a few series.
      const pushes = (a: string) => shown.has(a) || closed.shown.has(a) || a.startsWith('(');
      for (const s of shared) parts.push(only(s, (a) => typeof a === 'string' && pushes(a)));
      return `${proc}\n${await AggregatorRegistry.aggregate(parts).metrics()}`;
    },
    async account(name) {
      const registry = registryOf(name);
      const own = registry ? await registry.getMetricsAsJSON() : await o.closed?.(name);
      if (!own) return undefined;
      const shared = await Promise.all((o.shared?.() ?? []).map((r) => r.getMetricsAsJSON()));
      const pushes = shared.map((s) => only(s, (a) => a === name));
      return AggregatorRegistry.aggregate([own, ...pushes]).metrics();
    },
    async retire(registry) {
      retired = totalsOf([retired, countsOf(await registry.getMetricsAsJSON())]);
    },
  };
}
