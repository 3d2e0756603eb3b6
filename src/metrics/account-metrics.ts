import { AggregatorRegistry, collectDefaultMetrics, Registry } from 'prom-client';

/**
 * /metrics of a process running several accounts: each account's registry (its series labelled `account`,
 * createMetrics's `labels`) and the process's own (CPU, memory, event loop: the process's, so without `account`),
 * merged at each scrape into one text with one HELP and TYPE per metric. Series of distinct accounts keep their own
 * label sets; none is summed with another's.
 */
export interface AccountMetrics {
  contentType: Registry['contentType'];
  metrics(): Promise<string>;
}

export function accountMetrics(registries: () => readonly Registry[]): AccountMetrics {
  const processRegistry = new Registry();
  collectDefaultMetrics({ register: processRegistry });
  return {
    contentType: processRegistry.contentType,
    async metrics() {
      // The process's series as they are (aggregate() would drop those it omits across processes, e.g. the start time).
      const [own, accounts] = await Promise.all([processRegistry.metrics(), Promise.all(registries().map((r) => r.getMetricsAsJSON()))]);
      if (accounts.length === 0) return own;
      return `${own}\n${await AggregatorRegistry.aggregate(accounts).metrics()}`;
    },
  };
}
