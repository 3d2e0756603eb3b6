// Catalog memory of one process with many accounts (issue 56, item 3): N small catalogs (20 products each) and one
// large one (50,000 products, from a sandbox seeded with them), used once each, the large one last, with and without
// the bound of CATALOG_CACHE_MB (src/catalog/catalog-budget.ts). Each run is its own process (--expose-gc): heap used
// after a full GC, before the catalogs load and after; median of 3 runs of each, and the ratio.
//   npx tsx bench/catalog-memory.ts [--small 9999] [--large 50000] [--mb 32] [--runs 3]
import { fork } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Catalog } from '../src/catalog/catalog.js';
import { CatalogBudget } from '../src/catalog/catalog-budget.js';
import { ServiceClient } from '../src/client/service-client.js';
import { createRedis, redisKeys } from '../src/redis/connection.js';
import { startRedisServer } from '../src/redis/embedded-server.js';
import type { SandboxData } from '../src/sandbox/sandbox-data-schema.js';
import { startSandbox, type Sandbox } from '../src/sandbox/sandbox.js';
import { median } from './lib/median.js';
import { textTable } from './lib/tables.js';

interface Args {
  small: number;
  large: number;
  mb: number;
  runs: number;
}
interface Where {
  redisUrl: string;
  large: { url: string; account: string };
  small: { url: string; account: string };
  n: number;
  /** 0: no bound. */
  mb: number;
}
interface Run {
  heapMb: number;
  estimatedMb: number;
  held: number;
  largeHeld: boolean;
}

const MB = 1024 * 1024;
const r1 = (n: number) => Math.round(n * 10) / 10;

function argsOf(argv: string[]): Args {
  const get = (name: string, dflt: number) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? Number(argv[i + 1]) : dflt;
  };
  return { small: get('small', 9999), large: get('large', 50_000), mb: get('mb', 32), runs: get('runs', 3) };
}

function dataOf(account: string, products: number): SandboxData {
  const api = `/${account}/api`;
  return {
    account,
    facilities: [{ facilityId: '1', facilityName: 'Warehouse', parentFacilityUrl: null }],
    products: Array.from({ length: products }, (_, j) => ({
      productId: `P-${String(j).padStart(5, '0')}`,
      productUrl: `${api}/product/${90000 + j}`,
    })),
    inventory: [],
  };
}

const clientOf = (s: { url: string; account: string }) =>
  new ServiceClient({ baseUrl: s.url, account: s.account, apiKey: 'demo', apiSecret: 'demo' });

/** One process's run: every catalog used once (the large last), heap used after a full GC before and after. */
async function oneRun(w: Where): Promise<Run> {
  const gc = (globalThis as { gc?: () => void }).gc!;
  const redis = createRedis(w.redisUrl);
  const [large, small] = [clientOf(w.large), clientOf(w.small)];
  const budget = new CatalogBudget({ maxBytes: w.mb > 0 ? w.mb * MB : Number.MAX_SAFE_INTEGER, idleMs: 0 });
  const catalogs = Array.from(
    { length: w.n },
    (_, i) => new Catalog({ client: small, redis, keys: redisKeys(`cm-small-${i}`), refreshSeconds: 300, budget }),
  );
  const big = new Catalog({ client: large, redis, keys: redisKeys('cm-large'), refreshSeconds: 300, budget });
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < catalogs.length; i += 200) await Promise.all(catalogs.slice(i, i + 200).map((c) => c.product('P-00001')));
  await big.product('P-00001');
  gc();
  const after = process.memoryUsage().heapUsed;
  const [held, estimated, largeHeld] = [budget.held, budget.usedBytes, big.inMemory];
  budget.close();
  await Promise.all([large.close(), small.close()]);
  redis.disconnect();
  return { heapMb: (after - before) / MB, estimatedMb: estimated / MB, held, largeHeld };
}

/** Seeds Redis as a first use would: the large catalog from its sandbox, the small one's copy under every small prefix. */
async function seed(redisUrl: string, large: Sandbox, small: Sandbox, n: number): Promise<void> {
  const redis = createRedis(redisUrl);
  const [lc, sc] = [clientOf({ url: large.url, account: large.account }), clientOf({ url: small.url, account: small.account })];
  const t0 = Date.now();
  await new Catalog({ client: lc, redis, keys: redisKeys('cm-large'), refreshSeconds: 300 }).product('P-00001');
  process.stdout.write(`large catalog loaded from the sandbox in ${Date.now() - t0} ms\n`);
  await new Catalog({ client: sc, redis, keys: redisKeys('cm-small-0'), refreshSeconds: 300 }).product('P-00001');
  const copy = await redis.hgetall(redisKeys('cm-small-0').catalog());
  for (let i = 1; i < n; i += 500) {
    const batch = redis.pipeline();
    for (let j = i; j < Math.min(n, i + 500); j++) batch.hset(redisKeys(`cm-small-${j}`).catalog(), copy);
    await batch.exec();
  }
  await Promise.all([lc.close(), sc.close()]);
  redis.disconnect();
}

function runChild(w: Where): Promise<Run> {
  const child = fork(fileURLToPath(import.meta.url), ['--run', JSON.stringify(w)], { execArgv: ['--import', 'tsx', '--expose-gc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m as Run));
    child.once('exit', (code) => reject(new Error(`run exited (${code})`)));
  });
}

async function main(): Promise<void> {
  const a = argsOf(process.argv.slice(2));
  const server = await startRedisServer();
  const large = await startSandbox({ data: dataOf('big', a.large), account: 'big' });
  const small = await startSandbox({ data: dataOf('tiny', 20), account: 'tiny' });
  try {
    await seed(server.url, large, small, a.small);
    const at = (s: Sandbox) => ({ url: s.url, account: s.account });
    const runs: Record<'none' | 'bound', Run[]> = { none: [], bound: [] };
    for (let i = 0; i < a.runs; i++) {
      for (const mode of ['none', 'bound'] as const) {
        const w = { redisUrl: server.url, large: at(large), small: at(small), n: a.small, mb: mode === 'bound' ? a.mb : 0 };
        const r = await runChild(w);
        runs[mode].push(r);
        process.stdout.write(`run ${i + 1} ${mode}: heap +${r1(r.heapMb)} MB, estimated ${r1(r.estimatedMb)} MB, ${r.held} held\n`);
      }
    }
    const row = (mode: 'none' | 'bound', label: string) => {
      const rs = runs[mode];
      return [
        label,
        r1(median(rs.map((r) => r.heapMb))),
        r1(median(rs.map((r) => r.estimatedMb))),
        median(rs.map((r) => r.held)),
        rs.every((r) => r.largeHeld) ? 'yes' : 'no',
      ];
    };
    const none = median(runs.none.map((r) => r.heapMb));
    const bound = median(runs.bound.map((r) => r.heapMb));
    process.stdout.write(
      `\n${a.small} catalogs of 20 products + 1 of ${a.large}, used once each (the large last); median of ${a.runs}\n` +
        textTable(
          ['bound', 'heap used after - before MB', 'estimated MB', 'catalogs held', 'large held'],
          [row('none', 'none'), row('bound', `CATALOG_CACHE_MB=${a.mb}`)],
        ) +
        `\nheap with the bound / without: ${Math.round((bound / none) * 100) / 100}; estimate / heap without the bound: ${Math.round((median(runs.none.map((r) => r.estimatedMb)) / none) * 100) / 100}\n`,
    );
  } finally {
    await Promise.all([large.close(), small.close()]);
    await server.stop();
  }
}

if (process.argv[2] === '--run') process.send!(await oneRun(JSON.parse(process.argv[3]!) as Where));
else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
