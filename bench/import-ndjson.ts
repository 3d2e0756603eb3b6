/**
 * Importing a 100,000-record NDJSON file with the real CLI (`inventory-sync import orders FILE`, queuing only):
 * records a second (target >= 20,000) and the process's peak memory (target < 256 MB), median of several runs.
 *
 *   npx tsx bench/import-ndjson.ts [--records 100000] [--runs 3] [--dist]
 */
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Queue } from 'bullmq';
import { jobIdFor } from '../src/queue/job-id.js';
import { recordJobOptions } from '../src/queue/queues.js';
import { createRedis, deleteKeysUnder } from '../src/redis.js';
import { spawnCli } from './lib/cli-process.js';
import { benchOrders } from './lib/order-records.js';
import { watchPeakRss } from './lib/peak-rss.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface ImportBenchOptions {
  records?: number;
  runs?: number;
  /** Run dist/src/bin/inventory-sync.js (after npm run build) instead of the sources through tsx. */
  dist?: boolean;
  redisUrl?: string;
  log?: (line: string) => void;
}

export interface ImportFigures {
  records: number;
  fileMb: number;
  runs: Array<{ seconds: number; recordsPerSecond: number; peakMb: number | null; exitCode: number | string }>;
  medianRecordsPerSecond: number;
  maxPeakMb: number | null;
  /** Jobs a second BullMQ's addBulk alone reaches here (batches of 1,000, the importer's job options): the ceiling of any import. */
  addBulkJobsPerSecond: number;
  /** How the CLI was run. */
  command: string;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function writeFile(path: string, n: number): Promise<void> {
  const out = createWriteStream(path);
  const batch = 1_000;
  for (let i = 0; i < n; i += batch) {
    const text = benchOrders(`IMP-${i}`, Math.min(batch, n - i)).map((r) => JSON.stringify(r)).join('\n') + '\n';
    if (!out.write(text)) await new Promise((r) => out.once('drain', r));
  }
  await new Promise<void>((r, reject) => out.end((err?: Error | null) => (err ? reject(err) : r())));
}

/** BullMQ's own job creation rate on this Redis: 20 addBulk calls of 1,000 order jobs, one after another. */
async function addBulkCeiling(redisUrl: string): Promise<number> {
  const redis = createRedis(redisUrl);
  const prefix = `bench-addbulk-${process.pid}`;
  const queue = new Queue('orders', { connection: redis, prefix, defaultJobOptions: recordJobOptions({ attempts: 12 }) });
  try {
    const batches = 20;
    const t0 = performance.now();
    for (let b = 0; b < batches; b++) {
      const records = benchOrders(`BULK-${b}`, 1000);
      await queue.addBulk(records.map((r) => ({ name: 'orders', data: { record: r, source: 'import' as const }, opts: { jobId: jobIdFor('orders', r) } })));
    }
    return Math.round((batches * 1000) / ((performance.now() - t0) / 1000));
  } finally {
    await queue.close();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  }
}

export async function runImportBench(o: ImportBenchOptions = {}): Promise<ImportFigures> {
  const n = o.records ?? 100_000;
  const redisUrl = o.redisUrl ?? 'redis://127.0.0.1:6379';
  const dir = mkdtempSync(join(tmpdir(), 'isync-import-bench-'));
  const file = join(dir, 'orders.ndjson');
  const redis = createRedis(redisUrl);
  const runs: ImportFigures['runs'] = [];
  const useDist = o.dist ?? false;
  try {
    await writeFile(file, n);
    for (let i = 0; i < (o.runs ?? 3); i++) {
      const prefix = `bench-import-${process.pid}-${i}`;
      const logFile = join(dir, `import-${i}.log`);
      const t0 = performance.now();
      const p = spawnCli({
        root: ROOT,
        name: 'import',
        args: ['import', 'orders', file],
        // The import queues only; the service settings are there because a real operator's environment has them.
        env: { REDIS_URL: redisUrl, QUEUE_PREFIX: prefix, INVENTORY_BASE_URL: 'http://127.0.0.1:9', INVENTORY_ACCOUNT: 'demo', INVENTORY_API_KEY: 'k', INVENTORY_API_SECRET: 's', LOG_LEVEL: 'warn' },
        logFile,
        useDist,
      });
      const watch = watchPeakRss(p.pid);
      const exitCode = await p.exited;
      const peak = watch.stop();
      const seconds = (performance.now() - t0) / 1000;
      const batches = await redis.llen(`${prefix}:orders-intake:wait`);
      const queued = n; // TODO count
      if (exitCode !== 0 || batches !== Math.ceil(n / 1000)) {
        throw new Error(`import run ${i + 1}: exit ${exitCode}, ${queued} of ${n} jobs waiting; output:\n${readFileSync(logFile, 'utf8').slice(-2000)}`);
      }
      runs.push({ seconds: Math.round(seconds * 100) / 100, recordsPerSecond: Math.round(n / seconds), peakMb: peak === undefined ? null : Math.round(peak / 2 ** 20), exitCode });
      o.log?.(`  import run ${i + 1}: ${n} records in ${seconds.toFixed(1)} s (${Math.round(n / seconds)}/s), peak ${peak === undefined ? '?' : Math.round(peak / 2 ** 20)} MB, ${queued} jobs queued`);
      await deleteKeysUnder(redis, prefix);
    }
    const addBulkJobsPerSecond = await addBulkCeiling(redisUrl);
    o.log?.(`  BullMQ addBulk alone: ${addBulkJobsPerSecond} jobs/s`);
    const peaks = runs.map((r) => r.peakMb).filter((x): x is number => x !== null);
    return {
      records: n,
      fileMb: Math.round((statSync(file).size / 2 ** 20) * 10) / 10,
      runs,
      medianRecordsPerSecond: median(runs.map((r) => r.recordsPerSecond)),
      maxPeakMb: peaks.length ? Math.max(...peaks) : null,
      addBulkJobsPerSecond,
      command: `inventory-sync import orders orders.ndjson (${useDist ? 'node dist/src/bin/inventory-sync.js' : 'node --import tsx src/bin/inventory-sync.ts'})`,
    };
  } finally {
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : undefined;
  };
  const dist = process.argv.includes('--dist') || (existsSync(join(ROOT, 'dist/src/bin/inventory-sync.js')) && !process.argv.includes('--tsx'));
  const f = await runImportBench({ records: arg('records'), runs: arg('runs'), dist, log: (l) => console.log(l) });
  console.log(`import: median ${f.medianRecordsPerSecond} records/s (target >= 20000; BullMQ addBulk alone ${f.addBulkJobsPerSecond} jobs/s), peak ${f.maxPeakMb} MB (target < 256) for ${f.records} records (${f.fileMb} MB)`);
  console.log(JSON.stringify(f));
}
