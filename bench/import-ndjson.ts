/**
 * Importing a 100,000-record NDJSON file with the real CLI (`inventory-sync import orders FILE`, queuing only):
 * records a second (target >= 20,000) and the process's peak memory (target < 256 MB), median of several runs.
 * Each run then fans the intake batches out into one job per record, as a worker does (the same expandBatch, in
 * this process), and times that too: the import's rate over the fan-out's is what writing batches buys.
 *
 * With `--format csv` the same orders are an order export (a row per line, docs/transforms.md "CSV").
 *
 *   npx tsx bench/import-ndjson.ts [--records 100000] [--runs 3] [--dist] [--format csv]
 */
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Queue, Worker, type Job } from 'bullmq';
import { expandBatch } from '../src/queue/intake.js';
import { intakeQueueName, type IntakeData } from '../src/queue/intake-queue.js';
import { recordJobOptions, type JobData } from '../src/queue/queues.js';
import { createRedis, deleteKeysUnder } from '../src/redis/connection.js';
import { spawnCli } from './lib/cli-process.js';
import { benchOrders, type BenchOrder } from './lib/order-records.js';
import { watchPeakRss } from './lib/peak-rss.js';
import { median } from './lib/median.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface ImportBenchOptions {
  records?: number;
  runs?: number;
  /** Run dist/src/bin/inventory-sync.js (after npm run build) instead of the sources through tsx. */
  dist?: boolean;
  redisUrl?: string;
  log?: (line: string) => void;
  /** The file's format. Default ndjson. */
  format?: 'ndjson' | 'csv';
}

export interface ImportFigures {
  records: number;
  fileMb: number;
  runs: Array<{
    seconds: number;
    recordsPerSecond: number;
    peakMb: number | null;
    exitCode: number | string;
    batches: number;
    /** Seconds to turn every batch into record jobs (one addBulk of 1,000 a batch), and the rate. */
    fanOutSeconds: number;
    fanOutRecordsPerSecond: number;
    /** recordsPerSecond / fanOutRecordsPerSecond. */
    ratio: number;
  }>;
  medianRecordsPerSecond: number;
  maxPeakMb: number | null;
  /** Records a second the fan-out into one job per record reaches (median): what an import of one job per record could at best reach. */
  medianFanOutRecordsPerSecond: number;
  medianRatio: number;
  /** How the CLI was run. */
  command: string;
}

/** An order as the rows of an order export. */
const csvRows = (r: BenchOrder) =>
  r.lines.map((l) => `${r.orderId},${r.origin},${l.productId},${l.quantity},${l.unitPrice},"${l.location}"`);

async function writeFile(path: string, n: number, format: 'ndjson' | 'csv'): Promise<void> {
  const out = createWriteStream(path);
  if (format === 'csv') out.write('orderId,origin,productId,quantity,unitPrice,location\n');
  const batch = 1_000;
  for (let i = 0; i < n; i += batch) {
    const text =
      benchOrders(`IMP-${i}`, Math.min(batch, n - i))
        .flatMap((r) => (format === 'csv' ? csvRows(r) : [JSON.stringify(r)]))
        .join('\n') + '\n';
    if (!out.write(text)) await new Promise((r) => out.once('drain', r));
  }
  await new Promise<void>((r, reject) => out.end((err?: Error | null) => (err ? reject(err) : r())));
}

/** Turns every intake batch of the prefix into record jobs, one batch at a time, as the workers do; answers seconds. */
async function fanOut(redisUrl: string, prefix: string, n: number): Promise<number> {
  const redis = createRedis(redisUrl);
  const target = new Queue<JobData>('orders', { connection: redis, prefix, defaultJobOptions: recordJobOptions({ attempts: 12 }) });
  const t0 = performance.now();
  const worker = new Worker<IntakeData>(intakeQueueName('orders'), (job: Job<IntakeData>) => expandBatch(job, target), {
    connection: redis,
    prefix,
    concurrency: 1,
  });
  try {
    while ((await redis.llen(`${prefix}:orders:wait`)) < n) await new Promise((r) => setTimeout(r, 20));
    return (performance.now() - t0) / 1000;
  } finally {
    await worker.close();
    await target.close();
    redis.disconnect();
  }
}

export async function runImportBench(o: ImportBenchOptions = {}): Promise<ImportFigures> {
  const n = o.records ?? 100_000;
  const redisUrl = o.redisUrl ?? 'redis://127.0.0.1:6379';
  const dir = mkdtempSync(join(tmpdir(), 'isync-import-bench-'));
  const format = o.format ?? 'ndjson';
  const file = join(dir, `orders.${format}`);
  const redis = createRedis(redisUrl);
  const runs: ImportFigures['runs'] = [];
  const useDist = o.dist ?? false;
  try {
    await writeFile(file, n, format);
    for (let i = 0; i < (o.runs ?? 3); i++) {
      const prefix = `bench-import-${process.pid}-${i}`;
      const logFile = join(dir, `import-${i}.log`);
      const t0 = performance.now();
      const p = spawnCli({
        root: ROOT,
        name: 'import',
        args: ['import', 'orders', file],
        // The import queues only; the service settings are there because a real operator's environment has them.
        env: {
          REDIS_URL: redisUrl,
          QUEUE_PREFIX: prefix,
          INVENTORY_BASE_URL: 'http://127.0.0.1:9',
          INVENTORY_ACCOUNT: 'demo',
          INVENTORY_API_KEY: 'k',
          INVENTORY_API_SECRET: 's',
          LOG_LEVEL: 'warn',
        },
        logFile,
        useDist,
      });
      const watch = watchPeakRss(p.pid);
      const exitCode = await p.exited;
      const peak = watch.stop();
      const seconds = (performance.now() - t0) / 1000;
      // Every record is in a batch: nothing was lost on the way.
      const intake = new Queue<IntakeData>(intakeQueueName('orders'), { connection: redis, prefix });
      const batches = (await intake.getWaiting(0, -1)) as Array<Job<IntakeData>>;
      await intake.close();
      const inBatches = batches.reduce((sum, b) => sum + b.data.items.length, 0);
      if (exitCode !== 0 || inBatches !== n) {
        throw new Error(
          `import run ${i + 1}: exit ${exitCode}, ${inBatches} of ${n} records in intake batches; output:\n${readFileSync(logFile, 'utf8').slice(-2000)}`,
        );
      }
      const fanOutSeconds = await fanOut(redisUrl, prefix, n);
      const rate = Math.round(n / seconds);
      const fanOutRate = Math.round(n / fanOutSeconds);
      runs.push({
        seconds: Math.round(seconds * 100) / 100,
        recordsPerSecond: rate,
        peakMb: peak === undefined ? null : Math.round(peak / 2 ** 20),
        exitCode,
        batches: batches.length,
        fanOutSeconds: Math.round(fanOutSeconds * 100) / 100,
        fanOutRecordsPerSecond: fanOutRate,
        ratio: Math.round((rate / fanOutRate) * 100) / 100,
      });
      o.log?.(
        `  import run ${i + 1}: ${n} records in ${seconds.toFixed(1)} s (${rate}/s), peak ${peak === undefined ? '?' : Math.round(peak / 2 ** 20)} MB, ${batches.length} batches; ` +
          `fanned out into ${n} record jobs in ${fanOutSeconds.toFixed(1)} s (${fanOutRate}/s); ratio ${(rate / fanOutRate).toFixed(2)}`,
      );
      await deleteKeysUnder(redis, prefix);
    }
    const peaks = runs.map((r) => r.peakMb).filter((x): x is number => x !== null);
    return {
      records: n,
      fileMb: Math.round((statSync(file).size / 2 ** 20) * 10) / 10,
      runs,
      medianRecordsPerSecond: median(runs.map((r) => r.recordsPerSecond)),
      maxPeakMb: peaks.length ? Math.max(...peaks) : null,
      medianFanOutRecordsPerSecond: median(runs.map((r) => r.fanOutRecordsPerSecond)),
      medianRatio: median(runs.map((r) => r.ratio)),
      command: `inventory-sync import orders orders.${format} (${useDist ? 'node dist/src/bin/inventory-sync.js' : 'node --import tsx src/bin/inventory-sync.ts'})`,
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
  const dist =
    process.argv.includes('--dist') || (existsSync(join(ROOT, 'dist/src/bin/inventory-sync.js')) && !process.argv.includes('--tsx'));
  const format = process.argv.includes('csv') ? 'csv' : 'ndjson';
  const f = await runImportBench({ records: arg('records'), runs: arg('runs'), dist, format, log: (l) => console.log(l) });
  console.log(
    `import: median ${f.medianRecordsPerSecond} records/s (target >= 20000), peak ${f.maxPeakMb} MB (target < 256) for ${f.records} records (${f.fileMb} MB); ` +
      `fan-out into record jobs median ${f.medianFanOutRecordsPerSecond} records/s; import / fan-out median ratio ${f.medianRatio}`,
  );
  console.log(JSON.stringify(f));
}
