/**
 * The dashboard's all-accounts page at many accounts (issue 56), against the page as it was released (commit
 * BEFORE_REF, taken from git into a temporary directory): the real `inventory-sync dashboard` of each, from source
 * through tsx, one after the other on one private redis-server holding the same accounts. Measured per dashboard:
 * the seconds until it first answers `/`, then the bytes of `/` and the time to answer it (each request a full read
 * of every account: the new page's requests are spaced past its `accountsStateMs`, so none is served from its cache),
 * and the process's peak memory.
 *
 * `npx tsx bench/accounts-page.ts [--accounts 10000] [--runs 5] [--runs-before 1] [--before REF]`
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { accountPrefix } from '../config/accounts.js';
import { defaults } from '../config/defaults.js';
import { STREAMS } from '../jobs/kinds.js';
import { freePort } from '../src/net/free-port.js';
import { redisKeys } from '../src/redis/connection.js';
import { startRedisServer } from '../src/redis/embedded-server.js';
import { spawnCli } from './lib/cli-process.js';
import { median } from './lib/median.js';
import { watchPeakRss } from './lib/peak-rss.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The last commit with the page that listed every account (before issue 56). */
export const BEFORE_REF = '70a869257820e1347c6860f1e1988e02f475f2c1';
const PREFIX = 'bench-page';
/** The accounts that need a person: a stream paused, the service down, a call held. */
const TROUBLED = { paused: 'a0100', outage: 'a0200', call: 'a0300' };

export interface PageFigures {
  which: 'before' | 'after';
  accounts: number;
  /** Seconds from the spawn to the first answer of `/`. */
  startSeconds: number;
  bytes: number;
  /** Each request's seconds to the whole answer, and their median. */
  seconds: number[];
  medianSeconds: number;
  peakRssMb: number | null;
  /** Rows of accounts on the page, and whether the first is the account with a stream paused. */
  rows: number;
  pausedFirst: boolean;
}

/** Every account's feed state (as a polled, caught-up account has), and the troubled accounts' holds. */
async function seed(redis: Redis, names: readonly string[]): Promise<void> {
  const now = Date.now();
  for (let i = 0; i < names.length; i += 1000) {
    const pipe = redis.pipeline();
    for (const name of names.slice(i, i + 1000))
      for (const s of STREAMS) pipe.hset(redisKeys(accountPrefix(PREFIX, name)).feedState(s), { lastPollAt: now, caughtUpAt: now });
    await pipe.exec();
  }
  const keys = (name: string) => redisKeys(accountPrefix(PREFIX, name));
  await redis.hset(keys(TROUBLED.paused).breaker('orders'), { state: 'open', since: now, reason: '[UNAUTHORIZED] key revoked' });
  await redis.hset(keys(TROUBLED.outage).outage(), { state: 'open', since: now, reason: 'HTTP 503' });
  await redis.hset(keys(TROUBLED.call).callHolds(), { 'order-create:state': 'held', 'order-create:since': now });
}

/** The released tree at `ref`, runnable through tsx (its node_modules are this one's). */
function checkout(ref: string, dir: string): string {
  const into = join(dir, 'before');
  mkdirSync(into);
  const tar = execFileSync('git', ['archive', ref, 'src', 'config', 'jobs', 'package.json', 'tsconfig.json'], {
    cwd: ROOT,
    maxBuffer: 1 << 28,
  });
  execFileSync('tar', ['-x', '-C', into], { input: tar });
  symlinkSync(join(ROOT, 'node_modules'), join(into, 'node_modules'));
  return into;
}

async function timedGet(url: string): Promise<{ seconds: number; body: string; status: number }> {
  const t0 = performance.now();
  const r = await fetch(url);
  const body = await r.text();
  return { seconds: (performance.now() - t0) / 1000, body, status: r.status };
}

/** One dashboard (`root`'s) over the accounts: its start, then `runs` requests of `/`. */
async function measure(
  which: PageFigures['which'],
  o: { root: string; redisUrl: string; file: string; accounts: number; runs: number; dir: string; log: (l: string) => void },
): Promise<PageFigures> {
  const port = await freePort();
  const t0 = performance.now();
  const env = { REDIS_URL: o.redisUrl, QUEUE_PREFIX: PREFIX, ACCOUNTS_FILE: o.file, LOG_LEVEL: 'warn' };
  const p = spawnCli({
    root: o.root,
    name: which,
    args: ['dashboard', '--no-auth', '--port', String(port)],
    env,
    logFile: join(o.dir, `${which}.log`),
  });
  const peak = watchPeakRss(p.pid, 200);
  const url = `http://127.0.0.1:${port}/`;
  try {
    let first: Awaited<ReturnType<typeof timedGet>> | undefined;
    while (!first) {
      if (!p.alive()) throw new Error(`the ${which} dashboard ended: see ${p.logFile}`);
      if (performance.now() - t0 > 600_000) throw new Error(`the ${which} dashboard did not answer within 600 s`);
      first = await timedGet(url).catch(() => undefined);
      if (!first) await new Promise((r) => setTimeout(r, 200));
    }
    const startSeconds = (performance.now() - t0) / 1000;
    const seconds: number[] = [];
    let last = first;
    for (let i = 0; i < o.runs; i++) {
      if (which === 'after') await new Promise((r) => setTimeout(r, defaults.accountsStateMs + 100));
      last = await timedGet(url);
      if (last.status !== 200) throw new Error(`the ${which} dashboard answered ${last.status}`);
      seconds.push(last.seconds);
      o.log(`  ${which}: ${(last.body.length / 1024).toFixed(0)} KB in ${last.seconds.toFixed(3)} s`);
    }
    const rows = [...last.body.matchAll(/<tr data-account="([^"]+)">/g)].map((m) => m[1]);
    const rss = peak.stop();
    return {
      which,
      accounts: o.accounts,
      startSeconds: Math.round(startSeconds * 10) / 10,
      bytes: Buffer.byteLength(last.body),
      seconds,
      medianSeconds: Math.round(median(seconds) * 1000) / 1000,
      peakRssMb: rss === undefined ? null : Math.round(rss / 1024 / 1024),
      rows: rows.length,
      pausedFirst: rows[0] === TROUBLED.paused,
    };
  } finally {
    peak.stop();
    await p.stop(5_000);
  }
}

/** Both dashboards over `accounts` accounts, the released one first. */
export async function runAccountsPage(o: {
  accounts: number;
  runs: number;
  /** Requests of the released page (each a read of every account: tens of seconds at 10,000). Default: runs. */
  runsBefore?: number;
  before?: string;
  log?: (l: string) => void;
}): Promise<PageFigures[]> {
  const log = o.log ?? (() => undefined);
  const dir = mkdtempSync(join(tmpdir(), 'isync-accounts-page-'));
  const server = await startRedisServer();
  const redis = new Redis(server.url);
  try {
    const names = Array.from({ length: o.accounts }, (_, i) => `a${String(i).padStart(4, '0')}`);
    const file = join(dir, 'accounts.json');
    writeFileSync(file, JSON.stringify({ accounts: Object.fromEntries(names.map((n) => [n, {}])) }));
    await seed(redis, names);
    const before = checkout(o.before ?? BEFORE_REF, dir);
    const common = { redisUrl: server.url, file, accounts: o.accounts, runs: o.runs, dir, log };
    log(`accounts-page: the released page (${(o.before ?? BEFORE_REF).slice(0, 7)}) over ${o.accounts} accounts`);
    const was = await measure('before', { ...common, runs: o.runsBefore ?? o.runs, root: before });
    log(`accounts-page: this page over ${o.accounts} accounts`);
    const now = await measure('after', { ...common, root: ROOT });
    return [was, now];
  } finally {
    redis.disconnect();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      accounts: { type: 'string', default: '10000' },
      runs: { type: 'string', default: '5' },
      'runs-before': { type: 'string', default: '1' },
      before: { type: 'string' },
    },
  });
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const figures = await runAccountsPage({
    accounts: Number(values.accounts),
    runs: Number(values.runs),
    runsBefore: Number(values['runs-before']),
    before: values.before,
    log: say,
  });
  for (const f of figures) say(JSON.stringify({ ...f, seconds: undefined }));
  const [b, a] = figures as [PageFigures, PageFigures];
  say(`bytes: ${b.bytes} -> ${a.bytes} (${(b.bytes / a.bytes).toFixed(1)}x smaller)`);
  say(`median seconds: ${b.medianSeconds} -> ${a.medianSeconds} (${(b.medianSeconds / a.medianSeconds).toFixed(1)}x faster)`);
}
