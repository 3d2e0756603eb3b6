import type { AccountSeries } from './account-trouble.js';

type Json = AccountSeries[number];
type Value = Json['values'][number] & { metricName?: string };

/**
 * The deployment's totals of the accounts' series (src/metrics/account-metrics.ts): each series without its `account`
 * label, summed over the accounts or their largest, as the metric's `aggregator` says ('max' for a state or a time;
 * prom-client's default, 'sum', for the rest). One pass over the values, keyed by their labels as prom-client writes them.
 */
export function totalsOf(sets: Iterable<AccountSeries>): Json[] {
  const metrics = new Map<string, { head: Json; values: Map<string, Value> }>();
  for (const set of sets)
    for (const m of set) {
      let total = metrics.get(m.name);
      if (!total) metrics.set(m.name, (total = { head: m, values: new Map() }));
      const max = m.aggregator === 'max';
      for (const v of m.values as Value[]) {
        let key = v.metricName ?? '';
        for (const label in v.labels) if (label !== 'account') key += `\u0000${label}=${v.labels[label]}`;
        const have = total.values.get(key);
        if (!have) {
          const { account: _account, ...labels } = v.labels;
          total.values.set(key, { value: v.value, labels, ...(v.metricName ? { metricName: v.metricName } : {}) });
        } else have.value = max ? Math.max(have.value, v.value) : have.value + v.value;
      }
    }
  return [...metrics.values()].map(({ head, values }) => ({ ...head, values: [...values.values()] }));
}

/** Only the counts (counters and histograms) of an account's series: what stays in the totals once it stops. */
export const countsOf = (series: AccountSeries): AccountSeries => series.filter((m) => ['counter', 'histogram'].includes(String(m.type)));
