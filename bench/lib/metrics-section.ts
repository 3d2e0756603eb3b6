/**
 * The report's section of issue 56, item 5: the worker's /metrics with many idle accounts, today's way (every account's
 * registry merged) against the totals with only the accounts in trouble, in one run (bench/metrics-scrape.ts).
 */
import { runMetricsScrape, type MetricsScrapeFigures, type ScrapeFigures } from '../metrics-scrape.js';
import { startRedisServer } from '../../src/redis/embedded-server.js';
import type { BenchOptions } from './bench-options.js';
import type { Part } from './bench-doc.js';
import { markdownTable } from './tables.js';

type Measured = Pick<Part, 'title' | 'body'>;
const kb = (bytes: number) => Math.round(bytes / 102.4) / 10;

/** `npm run bench -- --only metrics`: 1,000 and 10,000 idle accounts (--quick: 100 and 1,000). */
export async function metricsSection(o: BenchOptions, say: (line: string) => void): Promise<Measured> {
  const counts = o.quick ? [100, 1000] : [1000, 10_000];
  const scrapes = o.quick ? 2 : 3;
  const server = await startRedisServer();
  const runs: MetricsScrapeFigures[] = [];
  try {
    for (const accounts of counts) {
      say(`metrics: ${accounts} idle accounts, ${scrapes} scrapes each way`);
      runs.push(await runMetricsScrape({ accounts, scrapes, redisUrl: server.url, log: say }));
    }
  } finally {
    await server.stop();
  }
  const rows = runs.flatMap((r) => {
    const old = r.scrapes.find((s) => s.way === 'every account merged');
    const now = r.scrapes.find((s) => s.way !== 'every account merged');
    const ms = (s: ScrapeFigures) => (s.medianMs === null ? `no answer in ${(s.capMs ?? 0) / 1000} s` : s.medianMs);
    const speedUp = () => {
      if (!old || !now?.medianMs) return '';
      const ratio = Math.round(((old.medianMs ?? old.capMs ?? 0) / now.medianMs) * 10) / 10;
      return `${old.medianMs === null ? 'over ' : ''}${ratio}×`;
    };
    return [old, now].flatMap((s) =>
      s ? [[s.accounts, s.way, s.series || '', s.bytes ? kb(s.bytes) : '', ms(s), s === now ? speedUp() : '', s.oneAccountMs ?? '']] : [],
    );
  });
  return {
    title: "The worker's /metrics with many accounts",
    body: [
      "One worker process's idle accounts built in-process as `worker` builds them with ACCOUNTS_FILE (each account's parts over one shared " +
        "Redis connection, and its registry of the program's metrics with their real reads from Redis at scrape time), on one redis-server of " +
        "their own, served over real HTTP two ways in the same run: today's (every account's registry merged, each series labelled `account`) " +
        "and the deployment's totals with only the accounts in trouble or named in METRICS_ACCOUNTS (none here) and the deployment's figures " +
        "(isync_deployment_*, one read of the sweep's summary of every account), reading from Redis the " +
        `figures of 500 accounts a scrape in turn (docs/monitoring.md, "Many accounts"). Median of ${scrapes} scrapes each (today's way: one past ` +
        "2,000 accounts, given 2 minutes; the new way once every account was read once); speed-up: today's median / the new one's.",
      '',
      `Command: \`npm run bench -- --only metrics${o.quick ? ' --quick' : ''}\`, or \`npx tsx bench/metrics-scrape.ts --accounts ${counts.join(',')} --scrapes ${scrapes}\``,
      '',
      markdownTable(['accounts', '/metrics', 'series', 'KB', 'scrape ms (median)', 'speed-up', '?account=NAME ms'], rows),
      '',
      markdownTable(
        ['accounts', "an account's registry, heap KB", "an account's parts (queues, clients), heap KB", "the sweep's read and summary, ms"],
        runs.map((r) => [r.accounts, kb(r.registryBytesPerAccount), kb(r.partsBytesPerAccount), r.sweepMs]),
      ),
    ],
  };
}
