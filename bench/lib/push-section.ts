import { runPushAccept, type PushAcceptFigures } from '../push-accept.js';
import { runPushLatency } from '../push-latency.js';
import type { BenchOptions } from './bench-options.js';
import { markdownTable } from './tables.js';

/** Targets of issue 27. */
const TARGET = { perSecond: 1_000, p99Ms: 100, growthMb: 32, latencyP99Ms: 1_500 };

const acceptRow = (label: string, f: PushAcceptFigures) => [
  label,
  f.deliveries.toLocaleString('en'),
  f.perSecond.toLocaleString('en'),
  f.p50Ms,
  f.p99Ms,
  f.maxMs,
  f.refused,
  f.cpuMsPerDelivery ?? 'n/a',
  `${f.memory[0]?.rssMb ?? 'n/a'} → ${f.memory.at(-1)?.rssMb ?? 'n/a'}`,
  f.jobsQueued.toLocaleString('en'),
];

/** Section 14 of docs/benchmarks.md: pushed records (issue 27), the receiver alone and end to end. */
export async function pushSection(o: BenchOptions, say: (line: string) => void) {
  const deliveries = o.quick ? 20_000 : 100_000;
  say('push: the receiver as fast as 32 senders go');
  const most = await runPushAccept({ deliveries: 20_000, concurrency: 32, log: say });
  say(`push: the receiver at 1,000 deliveries a second, ${deliveries.toLocaleString('en')} deliveries`);
  const steady = await runPushAccept({ deliveries, concurrency: 256, rate: 1_000, log: say });
  const seconds = o.quick ? 30 : 60;
  say('push: acknowledged → completed, pushed and polled, at half the POST budget');
  const l = await runPushLatency({ seconds, budget: 1_200, latencyMs: 20, log: say });
  const memory = steady.memory.map((m) => `${(m.delivered / 1000).toFixed(0)}k: ${m.rssMb} MB`).join(', ');
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  return {
    title: 'Pushed records: signed webhooks acknowledged a second, and acknowledgement to completed order',
    body: [
      '`inventory-sync receive` (a child process, from the sources) takes signed Standard Webhooks deliveries of one order each ' +
        'from a sender in the bench process (undici, keep-alive; a new webhook-id and HMAC-SHA256 signature each, computed as it ' +
        'sends) and answers 2xx once each order is a job in Redis. First as fast as 32 senders go; then at a fixed 1,000 a second, ' +
        "each timed from its due time (no coordinated omission), with the receiver's resident memory every tenth of the run. The " +
        'per-sender limit is raised for the run (one sender stands for many). Every acknowledged delivery is counted as a job afterwards.',
      '',
      `Commands: \`npx tsx bench/push-accept.ts --deliveries 20000 --concurrency 32\` and \`npx tsx bench/push-accept.ts --deliveries ${deliveries} --concurrency 256 --rate 1000\``,
      '',
      markdownTable(
        [
          'run',
          'deliveries',
          'acknowledged/s',
          'p50 ms',
          'p99 ms',
          'max ms',
          'not 2xx',
          'receiver CPU ms a delivery',
          'RSS MB first → last',
          'jobs in Redis',
        ],
        [acceptRow('as fast as answered', most), acceptRow('1,000 a second', steady)],
      ),
      '',
      `Memory at 1,000 a second: ${memory}. At least ${TARGET.perSecond.toLocaleString('en')} a second: ${met(most.perSecond >= TARGET.perSecond)}; ` +
        `p99 at 1,000 a second at most ${TARGET.p99Ms} ms: ${met(steady.p99Ms <= TARGET.p99Ms)}; memory flat (at most ` +
        `${TARGET.growthMb} MB more at the end than after the first tenth): ${met(steady.rssGrowthMb <= TARGET.growthMb)} ` +
        `(${steady.rssGrowthMb >= 0 ? '+' : ''}${steady.rssGrowthMb} MB).`,
      '',
      `\`inventory-sync worker\` (a child process) against the sandbox with a POST budget of ${l.budget} a minute in fixed 1-minute ` +
        `windows and 20 ms latency; orders arrive at ${l.ordersPerMinute} a minute for ${seconds} s (half the budget: an order is 4 POSTs), ` +
        "after one order that warms the catalog. Pushed: POSTed signed to the worker's receiver (INGEST_PORT, no UPSTREAM_URL), timed " +
        `from the 2xx. Polled: appended to a feed server the worker polls every ${l.pollSeconds} s (the default ORDER_POLL_SECONDS), timed ` +
        "from the append. Both to the job's completion (its finishedOn): created, shipped and completed in the service.",
      '',
      `Command: \`npx tsx bench/push-latency.ts --seconds ${seconds} --budget ${l.budget} --latency 20\``,
      '',
      markdownTable(
        ['path', 'orders', 'p50 ms', 'p99 ms', 'max ms', 'not completed'],
        [
          ['pushed', l.pushed.orders, l.pushed.p50Ms, l.pushed.p99Ms, l.pushed.maxMs, l.pushed.missing],
          ['polled every 5 s', l.polled.orders, l.polled.p50Ms, l.polled.p99Ms, l.polled.maxMs, l.polled.missing],
        ],
      ),
      '',
      `p99 polled / pushed: **${(l.polled.p99Ms / Math.max(1, l.pushed.p99Ms)).toFixed(1)}x**; pushed p99 at most ` +
        `${TARGET.latencyP99Ms.toLocaleString('en')} ms: ${met(l.pushed.p99Ms <= TARGET.latencyP99Ms && l.pushed.missing === 0)}.`,
    ],
  };
}
