/**
 * A planned failover (docs/deployment.md "Managed Redis: TLS, passwords, Sentinel"): a local primary, replica and
 * sentinel (test/kit/local-sentinel.ts); one `inventory-sync worker` through the sentinel syncs orders against the
 * sandbox; a fifth of the way in, `SENTINEL FAILOVER`, as a managed Redis's maintenance runs it. Clocked on the new
 * primary: seconds to the next job completed, and to the last of the jobs that were running at the failover.
 *
 *   npx tsx bench/planned-failover.ts [--runs 3] [--orders 300]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { STREAMS } from '../jobs/kinds.js';
import { startFeedServer } from '../src/feed/feed-server.js';
import { createRedis, deleteKeysUnder, formatClusterNodes } from '../src/redis/connection.js';
import { startSandbox } from '../src/sandbox/sandbox.js';
import { spawnCli } from './lib/cli-process.js';
import { timePlannedFailover, type FailoverTiming } from '../test/kit/failover-timing.js';
import { startLocalSentinel } from '../test/kit/local-sentinel.js';
import { median } from './lib/median.js';
import { benchOrders } from './lib/order-records.js';
import { markdownTable } from './lib/tables.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface FailoverRun extends FailoverTiming {
  orders: number;
  /** Orders the service holds once, completed, when the run ends. */
  completedOnce: number;
  /** Completions the worker found dropped with the old primary and made again (its log says). */
  madeAgain: number;
}

export interface PlannedFailoverOptions {
  /** Runs, each on a fresh primary, replica and sentinel. Default 3. */
  runs?: number;
  /** Orders a run syncs. Default 300. */
  orders?: number;
  log?: (line: string) => void;
}

async function until(what: string, timeoutMs: number, check: () => boolean): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what} within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** Completions made again, from the worker's JSON log lines (src/queue/finish-guard.ts). */
function madeAgain(log: string): number {
  let n = 0;
  for (const line of log.split('\n')) {
    if (!line.includes('"completedAgain"')) continue;
    try {
      n += Number((JSON.parse(line) as { completedAgain?: number }).completedAgain ?? 0);
    } catch {
      // Not a log line of the worker's: skipped.
    }
  }
  return n;
}

async function oneRun(n: number, log: (line: string) => void): Promise<FailoverRun> {
  const hex = () => randomBytes(8).toString('hex');
  const secrets = { key: 'key-bench', secret: `sec-${hex()}`, token: `tok-${hex()}` };
  const prefix = `bench-failover-${hex()}`;
  const orders = benchOrders(`PF${hex().slice(0, 4)}`, n);
  const dir = mkdtempSync(join(tmpdir(), 'isync-failover-bench-'));
  const local = await startLocalSentinel({ name: 'isync-bench', password: `data-${hex()}`, sentinelPassword: `sent-${hex()}` });
  const sandbox = await startSandbox({
    port: 0,
    data: 'demo',
    key: secrets.key,
    secret: secrets.secret,
    latency: { ms: 40, jitterMs: 10 },
  });
  const feed = await startFeedServer({ names: STREAMS, port: 0, streams: { orders }, token: secrets.token });
  const ids = new Set(orders.map((o) => o.orderId));
  const completed = () => sandbox.admin.state().orders.filter((o) => ids.has(o.orderId) && o.statusId === 'ORDER_COMPLETED');
  const worker = spawnCli({
    root,
    name: 'worker',
    args: ['worker'],
    logFile: join(dir, 'worker.log'),
    env: {
      REDIS_SENTINELS: formatClusterNodes([local.sentinel]),
      REDIS_SENTINEL_NAME: local.name,
      REDIS_SENTINEL_PASSWORD: local.sentinelPassword,
      REDIS_PASSWORD: local.password,
      QUEUE_PREFIX: prefix,
      INVENTORY_BASE_URL: sandbox.url,
      INVENTORY_ACCOUNT: sandbox.account,
      INVENTORY_API_KEY: secrets.key,
      INVENTORY_API_SECRET: secrets.secret,
      INVENTORY_POST_PER_MINUTE: '100000',
      INVENTORY_GET_PER_MINUTE: '100000',
      INVENTORY_COLLECTION_PER_HOUR: '100000',
      UPSTREAM_URL: feed.url,
      UPSTREAM_TOKEN: secrets.token,
      ORDER_POLL_SECONDS: '1',
      CATALOG_REFRESH_SECONDS: '0',
      // Ten at once against 40 ms answers: the sync still runs, jobs completing all the time, when the failover comes.
      WORKER_CONCURRENCY: '10',
      WORKER_HTTP_PORT: '0',
      LOG_LEVEL: 'info',
    },
  });
  try {
    await until('no order was synced', 60_000, () => completed().length >= n / 5);
    const timing = await timePlannedFailover(local, { prefix, queue: 'orders' });
    log(
      `failover: ${timing.caught.length} jobs running at it; next completed ${timing.nextCompletedS} s after, ` +
        `the last of those running ${timing.caughtCompletedS} s after`,
    );
    await until('the orders were not all synced', 120_000, () => completed().length >= n);
    await sleep(1_000);
    const perOrder = new Map<string, number>();
    for (const o of sandbox.admin.state().orders.filter((x) => ids.has(x.orderId)))
      perOrder.set(o.orderId, (perOrder.get(o.orderId) ?? 0) + 1);
    const completedOnce = completed().filter((o) => perOrder.get(o.orderId) === 1).length;
    const redis = createRedis(`redis://:${encodeURIComponent(local.password)}@127.0.0.1:${timing.moved.to}`);
    await deleteKeysUnder(redis, prefix).catch(() => undefined);
    redis.disconnect();
    return { ...timing, orders: n, completedOnce, madeAgain: madeAgain(readFileSync(worker.logFile, 'utf8')) };
  } finally {
    await worker.stop(10_000);
    await feed.close();
    await sandbox.close();
    await local.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runPlannedFailover(o: PlannedFailoverOptions = {}): Promise<FailoverRun[]> {
  const log = o.log ?? (() => undefined);
  const runs: FailoverRun[] = [];
  for (let i = 1; i <= (o.runs ?? 3); i++) {
    log(`failover: run ${i}: a primary, a replica and a sentinel; one worker syncing ${o.orders ?? 300} orders`);
    runs.push(await oneRun(o.orders ?? 300, log));
  }
  return runs;
}

/** The section of docs/benchmarks.md. */
export function plannedFailoverPart(runs: FailoverRun[], command: string): { title: string; body: string[] } {
  const s = (x: number) => (Number.isFinite(x) ? `${x}` : 'not within 120');
  return {
    title: 'Seconds from a planned failover to work (Redis Sentinel)',
    body: [
      'A local primary, replica and sentinel (test/kit/local-sentinel.ts, `down-after-milliseconds 2000`); one `inventory-sync worker` ' +
        'reaching Redis through the sentinel syncs orders against the sandbox (40 ms answers, 10 jobs at once); a fifth of the way in, ' +
        '`SENTINEL FAILOVER`, as a managed Redis runs it in its maintenance. Clocked from the command on the new primary: the next job ' +
        'completed there, and the last of the jobs that were running at the failover (those whose completion the old primary may have ' +
        'taken in and dropped when it turned replica; test/kit/failover-timing.ts, as test/sentinel/planned-failover.test.ts asserts). ' +
        "The worker's log says how many completions it found dropped and made again.",
      '',
      `Command: \`${command}\``,
      '',
      markdownTable(
        [
          'run',
          'orders',
          'jobs running at the failover',
          'completions dropped, made again',
          's to the next job completed',
          's to the last of those running',
          'orders completed once',
        ],
        runs.map((r, i) => [i + 1, r.orders, r.caught.length, r.madeAgain, s(r.nextCompletedS), s(r.caughtCompletedS), r.completedOnce]),
      ),
      '',
      `Median: **${median(runs.map((r) => r.caughtCompletedS))} s** from a planned failover until no job waits on it ` +
        "(before the worker made dropped completions again, test/sentinel/planned-failover.test.ts measured 55 to 57 s: BullMQ's " +
        'stalled-job check took those jobs back once their lock expired, 30 s lock, checked every 30 s).',
    ],
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { runs: { type: 'string' }, orders: { type: 'string' } }, strict: true });
  const runs = await runPlannedFailover({
    runs: values.runs === undefined ? undefined : Number(values.runs),
    orders: values.orders === undefined ? undefined : Number(values.orders),
    log: (l) => console.log(l),
  });
  const part = plannedFailoverPart(runs, `npx tsx bench/planned-failover.ts ${process.argv.slice(2).join(' ')}`.trim());
  console.log([`## 12. ${part.title}`, '', ...part.body].join('\n'));
  process.exit(0);
}
