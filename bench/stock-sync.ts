/**
 * The nightly stock sync at scale (docs/stock-sync.md "Benchmark"): 50,000 count lines over 20 locations
 * (20 counts of 2,500 lines); the sandbox and each scenario's worker run in child processes of their own, so
 * every figure is the worker's own.
 * Reports API calls by class, wall and CPU time of the processing, and peak memory, per scenario.
 *
 *   npx tsx bench/stock-sync.ts [--lines 50000] [--locations 20] [--runs 3]
 */
import { fork } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stockCountKind } from '../jobs/stock/stock-count-kind.js';
import type { ApiCall } from '../src/client/service-api.js';
import { createLogger } from '../src/log/logger.js';
import { waitForIdle } from '../src/queue/drain.js';
import { importNdjson } from '../src/feed/importer.js';
import { startWorkers } from '../src/queue/worker-pool.js';
import { createRedis, deleteKeysUnder } from '../src/redis/connection.js';
import { buildDeps } from '../src/app/build-deps.js';
import { sandboxConfig } from '../src/app/sandbox-config.js';
import { sandboxAdminClient } from '../src/sandbox/admin-client.js';
import type { SandboxData } from '../src/sandbox/sandbox-data-schema.js';
import { parseProfile } from '../src/sandbox/profile-rules.js';
import { sandboxDefaults, type SandboxProfile } from '../src/sandbox/sandbox-options.js';
import { startSandbox } from '../src/sandbox/sandbox.js';
import { machine, machineLine } from './lib/machine.js';
import { markdownTable, textTable } from './lib/tables.js';
import { median } from './lib/median.js';

const ACCOUNT = 'bench';
const api = `/${ACCOUNT}/api`;
const pad = (n: number, w: number) => String(n).padStart(w, '0');

interface Shape {
  locations: number;
  products: number;
}

/** Deterministic stock of location i, product j (both processes compute it). */
const stockOf = (i: number, j: number) => 10 + ((i * 31 + j * 17) % 90);
const productUrlOf = (j: number) => (j % 3 === 0 ? `${api}/product/${90000 + j}` : `${api}/product/P-${pad(j, 5)}`);
const locationUrlOf = (i: number) => `${api}/facility/${1001 + i}`;

/** The sandbox account: one magazine, `locations` locations, `products` products stocked everywhere, a quarter split in two lots. */
function benchData(s: Shape): SandboxData {
  const facilities: NonNullable<SandboxData['facilities']> = [
    { facilityId: '1000', facilityName: 'Bench Warehouse', parentFacilityUrl: null },
  ];
  for (let i = 0; i < s.locations; i++)
    facilities.push({ facilityId: String(1001 + i), facilityName: `L-${pad(i + 1, 2)}`, parentFacilityUrl: `${api}/facility/1000` });
  const products = Array.from({ length: s.products }, (_, j) => ({ productId: `P-${pad(j, 5)}`, productUrl: productUrlOf(j) }));
  const inventory: NonNullable<SandboxData['inventory']> = [];
  for (let i = 0; i < s.locations; i++) {
    for (let j = 0; j < s.products; j++) {
      const q = stockOf(i, j);
      if (j % 4 === 0) {
        inventory.push({
          facilityUrl: locationUrlOf(i),
          productUrl: productUrlOf(j),
          quantityOnHand: Math.floor(q / 2),
          lotId: `LOT-${j}-A`,
        });
        inventory.push({
          facilityUrl: locationUrlOf(i),
          productUrl: productUrlOf(j),
          quantityOnHand: q - Math.floor(q / 2),
          lotId: `LOT-${j}-B`,
        });
      } else inventory.push({ facilityUrl: locationUrlOf(i), productUrl: productUrlOf(j), quantityOnHand: q });
    }
  }
  return { account: ACCOUNT, facilities, products, inventory };
}

/** Whether line (i, j) differs from stock, for a share of lines. */
const differs = (i: number, j: number, share: number) => ((i * 7919 + j * 104729) % 1000) / 1000 < share;
const counted = (i: number, j: number, share: number) => (differs(i, j, share) ? stockOf(i, j) + 1 + ((i + j) % 5) : stockOf(i, j));

/** Writes one count per location as NDJSON; answers the number of differing lines. */
async function writeCounts(path: string, s: Shape, share: number): Promise<number> {
  const out = createWriteStream(path);
  let differences = 0;
  for (let i = 0; i < s.locations; i++) {
    const items = Array.from({ length: s.products }, (_, j) => {
      if (differs(i, j, share)) differences++;
      return { productId: `P-${pad(j, 5)}`, quantity: counted(i, j, share) };
    });
    const line = JSON.stringify({
      countId: `CNT-2026-11-21-L${pad(i + 1, 2)}`,
      location: `Bench Warehouse / L-${pad(i + 1, 2)}`,
      countDate: '2026-11-21',
      items,
    });
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return differences;
}

export interface StockBenchScenario {
  /** Share of count lines that differ from the stock on hand. */
  share: number;
  chunkSize: number;
}

export interface StockBenchFigures extends StockBenchScenario {
  lines: number;
  locations: number;
  differences: number;
  inventoryReads: number;
  variancePosts: number;
  otherCalls: number;
  /** Time to queue the counts from their NDJSON file, ms (part of wallMs). */
  importMs: number;
  /** Time from reading the file to idle, ms: import, then processing (the sandbox answering included). */
  wallMs: number;
  /** RSS of the worker process just before the run (code, catalog, connections), MB. */
  baselineRssMb: number;
  /** CPU time of the worker process over that window, ms. */
  cpuMs: number;
  /** Highest RSS / heap used of the worker process over that window, MB. */
  peakRssMb: number;
  peakHeapMb: number;
  converged: boolean;
}

/** Runs one scenario against a sandbox child (reset to its start data first). */
async function runScenario(
  sb: { url: string; key: string; secret: string },
  s: Shape,
  sc: StockBenchScenario,
  redisUrl: string,
  dir: string,
): Promise<StockBenchFigures> {
  const admin = sandboxAdminClient(sb);
  await admin.reset();
  const file = join(dir, `counts-${sc.share}-${sc.chunkSize}.ndjson`);
  const differences = await writeCounts(file, s, sc.share);
  const redis = createRedis(redisUrl);
  const prefix = `bench-stock-${process.pid}-${Date.now().toString(36)}`;
  const logger = createLogger({ level: 'silent' });
  const calls: ApiCall[] = [];
  const jobs = {
    attempts: 5,
    retryBaseDelayMs: 500,
    retryMaxDelayMs: 5_000,
    concurrency: 16,
    varianceChunkSize: sc.chunkSize,
    feedPageSize: 500,
  };
  const config = sandboxConfig({ ...sb, account: ACCOUNT }, { redis: redisUrl, prefix, jobs, catalogRefreshSeconds: 300 });
  const deps = buildDeps(config, logger, {
    redis,
    budget: false,
    onCall: (c) => calls.push(c),
    kinds: [stockCountKind],
    streams: ['stock-counts'],
  });
  const { catalog, queues } = deps;
  await catalog.refresh(); // a worker has its catalog cached; its collection GETs are not the run's
  calls.length = 0;
  let peakRss = 0;
  let peakHeap = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  };
  const baselineRss = process.memoryUsage().rss;
  const sampler = setInterval(sample, 5);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await importNdjson({ kind: stockCountKind, source: file, queues, redis, logger });
  const importMs = performance.now() - t0;
  const pool = await startWorkers({
    kinds: [stockCountKind],
    connection: redisUrl,
    prefix,
    deps: { ...deps, jobs },
    concurrency: jobs.concurrency,
    logger,
  });
  await waitForIdle([queues.intake('stock-counts'), queues.get('stock-counts')], { pollMs: 20 });
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  sample();
  const failed = await queues.get('stock-counts').getFailedCount();
  await pool.close(1_000);
  // Convergence: every counted quantity is on hand now (sampled: one product in 25 of every location).
  let converged = failed === 0;
  for (let i = 0; i < s.locations && converged; i++) {
    for (let j = 0; j < s.products && converged; j += 25)
      converged = (await admin.stockOnHand(locationUrlOf(i), productUrlOf(j))) === counted(i, j, sc.share);
  }
  const inventoryReads = calls.filter((c) => c.path.endsWith('/api/inventoryitem')).length;
  const variancePosts = calls.filter((c) => c.method === 'POST' && c.path.endsWith('/api/inventoryvariance')).length;
  await deps.close();
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
  return {
    ...sc,
    lines: s.locations * s.products,
    locations: s.locations,
    differences,
    inventoryReads,
    variancePosts,
    otherCalls: calls.length - inventoryReads - variancePosts,
    importMs: Math.round(importMs),
    wallMs: Math.round(wallMs),
    baselineRssMb: Math.round(baselineRss / 2 ** 20),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    peakRssMb: Math.round(peakRss / 2 ** 20),
    peakHeapMb: Math.round(peakHeap / 2 ** 20),
    converged,
  };
}

export interface StockBenchOptions {
  lines?: number;
  locations?: number;
  scenarios?: StockBenchScenario[];
  /** How the sandbox answers. Default: sandboxDefaults.profile. */
  profile?: SandboxProfile;
  redisUrl?: string;
}

/** The default scenarios: a typical night (a tenth of lines differ) and the worst case (every line differs). */
export const STOCK_BENCH_SCENARIOS: StockBenchScenario[] = [
  { share: 0.1, chunkSize: 500 },
  { share: 1, chunkSize: 500 },
  { share: 1, chunkSize: 2_500 },
];

type SandboxInfo = { url: string; key: string; secret: string };

/** Forks this file in a mode and answers its first IPC message. */
function forkSelf<T>(args: string[]): { child: ReturnType<typeof fork>; message: Promise<T> } {
  const child = fork(fileURLToPath(import.meta.url), args, { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const message = new Promise<T>((resolve, reject) => {
    child.once('message', (m) => resolve(m as T));
    child.once('exit', (code) => reject(new Error(`bench process ${args[0]} exited (${code})`)));
  });
  return { child, message };
}

/**
 * Figures of every scenario (for `npm run bench` and this file's own output). The sandbox runs in one child
 * process, each scenario's worker in a fresh one, so memory figures are the worker's alone.
 */
export async function benchStockSync(o: StockBenchOptions = {}): Promise<StockBenchFigures[]> {
  const locations = o.locations ?? 20;
  const shape: Shape = { locations, products: Math.round((o.lines ?? 50_000) / locations) };
  const sandbox = forkSelf<SandboxInfo>(['--serve', JSON.stringify(shape), o.profile ?? sandboxDefaults.profile]);
  const sb = await sandbox.message;
  const dir = mkdtempSync(join(tmpdir(), 'bench-stock-'));
  const redisUrl = o.redisUrl ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  try {
    const out: StockBenchFigures[] = [];
    for (const sc of o.scenarios ?? STOCK_BENCH_SCENARIOS) {
      const worker = forkSelf<StockBenchFigures>(['--scenario', JSON.stringify({ sb, shape, sc, redisUrl, dir })]);
      out.push(await worker.message);
      worker.child.kill();
    }
    return out;
  } finally {
    sandbox.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const STOCK_BENCH_HEAD = [
  'lines differing',
  'chunk',
  'differences',
  'inventory GETs',
  'variance POSTs',
  'other calls',
  'import ms',
  'wall ms',
  'CPU ms',
  'RSS before MB',
  'peak RSS MB',
  'peak heap MB',
  'converged',
];

export function stockBenchRows(figures: StockBenchFigures[]): Array<Array<string | number>> {
  return figures.map((f) => [
    `${Math.round(f.share * 100)}%`,
    f.chunkSize,
    f.differences,
    f.inventoryReads,
    f.variancePosts,
    f.otherCalls,
    f.importMs,
    f.wallMs,
    f.cpuMs,
    f.baselineRssMb,
    f.peakRssMb,
    f.peakHeapMb,
    f.converged ? 'yes' : 'NO',
  ]);
}

async function main(): Promise<void> {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : undefined;
  };
  const runs = arg('runs') ?? 1;
  const lines = arg('lines') ?? 50_000;
  const locations = arg('locations') ?? 20;
  const p = process.argv.indexOf('--profile');
  const profile = p > 0 ? parseProfile(process.argv[p + 1] ?? '') : undefined;
  console.log(
    `stock sync: ${lines.toLocaleString('en')} count lines over ${locations} locations (${locations} counts), sandbox in a child process`,
  );
  console.log(machineLine(machine()));
  const all: StockBenchFigures[][] = [];
  for (let r = 1; r <= runs; r++) {
    const figures = await benchStockSync({ lines, locations, profile });
    all.push(figures);
    console.log(`run ${r} of ${runs}`);
    console.log(textTable(STOCK_BENCH_HEAD, stockBenchRows(figures)));
  }
  const medians = all[0]!.map((f, i) => {
    const of = (k: 'importMs' | 'wallMs' | 'cpuMs' | 'baselineRssMb' | 'peakRssMb' | 'peakHeapMb') => median(all.map((run) => run[i]![k]));
    return {
      ...f,
      importMs: of('importMs'),
      wallMs: of('wallMs'),
      cpuMs: of('cpuMs'),
      baselineRssMb: of('baselineRssMb'),
      peakRssMb: of('peakRssMb'),
      peakHeapMb: of('peakHeapMb'),
      converged: all.every((run) => run[i]!.converged),
    };
  });
  if (runs > 1) console.log(`medians of ${runs} runs\n${textTable(STOCK_BENCH_HEAD, stockBenchRows(medians))}`);
  if (process.argv.includes('--markdown')) console.log(`\n${markdownTable(STOCK_BENCH_HEAD, stockBenchRows(medians))}`);
}

async function serve(shape: Shape, profile: SandboxProfile): Promise<void> {
  const sb = await startSandbox({ data: benchData(shape), account: ACCOUNT, profile });
  process.send?.({ url: sb.url, key: sb.key, secret: sb.secret });
}

async function scenario(a: { sb: SandboxInfo; shape: Shape; sc: StockBenchScenario; redisUrl: string; dir: string }): Promise<void> {
  process.send?.(await runScenario(a.sb, a.shape, a.sc, a.redisUrl, a.dir));
}

if (process.argv[2] === '--serve') await serve(JSON.parse(process.argv[3]!) as Shape, parseProfile(process.argv[4]!));
else if (process.argv[2] === '--scenario') await scenario(JSON.parse(process.argv[3]!));
else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
