/**
 * The worker's /metrics with many idle accounts (issue 56, item 5): one process's accounts built in-process as `worker`
 * builds them with ACCOUNTS_FILE (each its parts over one shared Redis connection, src/app/build-deps.ts, and its
 * registry of the program's metrics with their real scrape-time reads, src/app/metric-sources.ts), served over real
 * HTTP (src/metrics/worker-http.ts) two ways in the same run: today's (every account's registry merged, each series
 * labelled `account`) and the deployment's totals with only the accounts in trouble or named
 * (src/metrics/account-metrics.ts), with the deployment's figures read from the sweep's summary of these accounts
 * (src/queue/dispatch/deployment-summary.ts). Per way: scrape time (median), size, series; and the memory of an
 * account's registry; and the sweep's read of every account with its summary written.
 *
 *   npx tsx bench/metrics-scrape.ts [--accounts 1000,10000] [--scrapes 5]
 */
import { EventEmitter } from 'node:events';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Worker } from 'bullmq';
import { AggregatorRegistry, collectDefaultMetrics, Registry } from 'prom-client';
import { readConfig } from '../config/read-config.js';
import { programKinds } from '../jobs/kinds.js';
import { buildDeps, type AppDeps } from '../src/app/build-deps.js';
import { metricSources } from '../src/app/metric-sources.js';
import { createLogger } from '../src/log/logger.js';
import { accountMetrics, READS_PER_SCRAPE } from '../src/metrics/account-metrics.js';
import { createMetrics } from '../src/metrics/metrics.js';
import { startWorkerHttp } from '../src/metrics/worker-http.js';
import { readAccountsWork } from '../src/queue/dispatch/account-work.js';
import { readSummary, summarize, writeSummary } from '../src/queue/dispatch/deployment-summary.js';
import { createRedis } from '../src/redis/connection.js';
import { startRedisServer } from '../src/redis/embedded-server.js';
import { median } from './lib/median.js';

export interface ScrapeFigures {
  way: 'every account merged' | 'totals + accounts in trouble';
  accounts: number;
  /** null: no answer within `capMs` (today's way past 2,000 accounts). */
  medianMs: number | null;
  capMs?: number;
  bytes: number;
  series: number;
  /** `/metrics?account=NAME` (the new way only). */
  oneAccountMs?: number;
}

export interface MetricsScrapeFigures {
  accounts: number;
  /** The sweep's read of every account and its summary written, ms. */
  sweepMs: number;
  /** Heap an account's registry of metrics adds (after a GC), and its parts (queues, clients) besides. */
  registryBytesPerAccount: number;
  partsBytesPerAccount: number;
  scrapes: ScrapeFigures[];
}

/** Today's /metrics before issue 56 (src/metrics/account-metrics.ts at main): every account's registry merged. */
function everyAccountMerged(registries: () => readonly Registry[]) {
  const processRegistry = new Registry();
  collectDefaultMetrics({ register: processRegistry });
  return {
    contentType: processRegistry.contentType,
    async metrics() {
      const [own, accounts] = await Promise.all([processRegistry.metrics(), Promise.all(registries().map((r) => r.getMetricsAsJSON()))]);
      return `${own}\n${await AggregatorRegistry.aggregate(accounts).metrics()}`;
    },
  };
}

const gc = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();
const heap = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

/**
 * Scrapes `url` `times` times after `warm` more: the median time, the size and the series of the last; none when a
 * scrape takes longer than `capMs`.
 */
async function scrape(url: string, times: number, warm: number, capMs = 600_000) {
  const ms: number[] = [];
  let text = '';
  for (let i = 0; i < warm + times; i++) {
    const t0 = performance.now();
    try {
      text = await (await fetch(url, { signal: AbortSignal.timeout(capMs) })).text();
    } catch {
      return { medianMs: null, capMs, bytes: 0, series: 0 };
    }
    if (i >= warm) ms.push(performance.now() - t0);
  }
  const series = text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;
  return { medianMs: Math.round(median(ms)), bytes: Buffer.byteLength(text), series };
}

export async function runMetricsScrape(o: {
  accounts: number;
  scrapes: number;
  redisUrl: string;
  log: (l: string) => void;
}): Promise<MetricsScrapeFigures> {
  const redis = createRedis(o.redisUrl);
  const logger = createLogger({ level: 'silent' });
  const names = Array.from({ length: o.accounts }, (_, i) => `acct-${i}`);
  const before = heap();
  const deps: AppDeps[] = names.map((name) =>
    buildDeps(
      readConfig(
        {
          REDIS_URL: o.redisUrl,
          QUEUE_PREFIX: `ms-${name}`,
          INVENTORY_BASE_URL: 'http://127.0.0.1:9',
          INVENTORY_ACCOUNT: name,
          INVENTORY_API_KEY: 'k',
          INVENTORY_API_SECRET: 's',
          UPSTREAM_URL: 'http://127.0.0.1:9',
          UPSTREAM_TOKEN: 't',
        },
        { service: true },
        programKinds,
      ),
      logger,
      {
        redis,
        kinds: programKinds,
      },
    ),
  );
  const withParts = heap();
  const running = deps.map((d, i) => {
    const metrics = createMetrics({ sources: metricSources(d), defaultMetrics: false, labels: { account: names[i]! } });
    // A running worker's series of job outcomes, at 0 from its start (its workers' events: none when idle).
    for (const k of programKinds) metrics.watchWorker(new EventEmitter() as unknown as Worker, k.stream);
    return { name: names[i]!, registry: metrics.registry };
  });
  const withRegistries = heap();
  o.log(`  built ${o.accounts} accounts' parts and registries`);
  // The sweep's summary of these accounts, as the sweep's process writes it once a minute.
  const base = 'ms-deployment';
  const t0 = performance.now();
  const states = await readAccountsWork(
    redis,
    deps.map((d, i) => ({ name: names[i]!, prefix: d.config.redis.prefix })),
    programKinds.map((k) => k.stream),
  );
  await writeSummary(redis, base, summarize(states, Date.now()), 60_000);
  const sweepMs = Math.round(performance.now() - t0);
  const figures: MetricsScrapeFigures = {
    accounts: o.accounts,
    sweepMs,
    partsBytesPerAccount: Math.round((withParts - before) / o.accounts),
    registryBytesPerAccount: Math.round((withRegistries - withParts) / o.accounts),
    scrapes: [],
  };
  // Redis's scripts loaded and the connection warm, for both ways alike.
  await Promise.all(running.slice(0, 10).map((r) => r.registry.getMetricsAsJSON()));
  // The new way reads READS_PER_SCRAPE accounts from Redis a scrape: warmed up until every account was read once.
  // Today's reads every account at every scrape: no warm-up; past 2,000 accounts one scrape, given 2 minutes (it runs
  // last: a scrape given up on goes on working in the process).
  const ways = [
    {
      way: 'totals + accounts in trouble' as const,
      warm: Math.ceil(o.accounts / READS_PER_SCRAPE),
      times: o.scrapes,
      capMs: undefined,
      registry: accountMetrics({ accounts: () => running, named: [], lagSeconds: 600, deployment: () => readSummary(redis, base) }),
    },
    {
      way: 'every account merged' as const,
      warm: 0,
      times: o.accounts > 2000 ? 1 : o.scrapes,
      capMs: o.accounts > 2000 ? 120_000 : undefined,
      registry: everyAccountMerged(() => running.map((r) => r.registry)),
    },
  ];
  for (const w of ways) {
    const http = await startWorkerHttp({ host: '127.0.0.1', port: 0, registry: w.registry, readiness: [] });
    try {
      const s: ScrapeFigures = { way: w.way, accounts: o.accounts, ...(await scrape(`${http.url}/metrics`, w.times, w.warm, w.capMs)) };
      if (w.way !== 'every account merged')
        s.oneAccountMs = (await scrape(`${http.url}/metrics?account=${names[o.accounts - 1]}`, o.scrapes, 0)).medianMs ?? undefined;
      o.log(`  ${JSON.stringify(s)}`);
      figures.scrapes.push(s);
    } finally {
      await http.close();
    }
  }
  await Promise.all(deps.map((d) => d.close()));
  redis.disconnect();
  return figures;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: { accounts: { type: 'string', default: '1000,10000' }, scrapes: { type: 'string', default: '5' } },
  });
  const server = await startRedisServer();
  try {
    for (const n of values.accounts.split(',').map(Number)) {
      console.log(`${n} idle accounts`);
      const f = await runMetricsScrape({ accounts: n, scrapes: Number(values.scrapes), redisUrl: server.url, log: console.log });
      console.log(JSON.stringify({ ...f, scrapes: undefined }));
    }
  } finally {
    await server.stop();
  }
  process.exit(0);
}
