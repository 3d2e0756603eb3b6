import { describe, expect, it } from 'vitest';
import { troubleWatch } from '../../src/metrics/account-trouble.js';
import { createMetrics } from '../../src/metrics/metrics.js';

describe('troubleWatch', () => {
  it('shows an account from its trouble until an hour after it ended, and not for what it had before the first scrape', async () => {
    let paused = false;
    const metrics = createMetrics({
      defaultMetrics: false,
      labels: { account: 'acme' },
      sources: {
        queueCounts: async () => [],
        intakeCounts: async () => [],
        feedLag: async () => [],
        feedLagging: async () => [{ stream: 'orders', seconds: 30 }],
        holds: async () => ({
          streams: [{ stream: 'orders', paused, refusals: paused ? 3 : 0 }],
          outage: { open: false, since: null },
          calls: [],
        }),
      },
    });
    let now = 0;
    const watch = troubleWatch({ lagSeconds: 600, lingerMs: 3600_000, now: () => now });
    const judge = async () => {
      const why = watch.judge('acme', await metrics.registry.getMetricsAsJSON());
      watch.scraped(new Set(['acme']));
      return why;
    };
    // A failure counted before the first scrape is where the count starts from: no trouble.
    metrics.jobFinished('orders', 'failed', 1);
    expect(await judge()).toEqual([]);
    now = 1000;
    metrics.jobFinished('orders', 'failed', 1);
    expect(await judge()).toEqual(['jobs-failing']);
    now = 2000;
    paused = true;
    await new Promise((r) => setTimeout(r, 600)); // the holds' read serves 500 ms
    expect(await judge()).toEqual(['account-refuses', 'jobs-failing', 'stream-paused']);
    paused = false;
    await new Promise((r) => setTimeout(r, 600));
    now = 2000 + 3600_000 - 1;
    expect(await judge()).toEqual(['account-refuses', 'stream-paused']);
    now = 2000 + 3600_000;
    expect(await judge()).toEqual([]);
  });
});
