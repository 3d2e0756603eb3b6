/**
 * The first minutes of a total shared with another client of the account (issue 37): the sandbox allows `total`
 * requests a minute for every client together (fixed 1-minute windows); another client (test/kit/other-client.ts)
 * spends `other` of them a minute, deaf to the answers, from a window (`--other-lead`, 60 s) before this program
 * starts (its figures count from this program's start). This program is the real CLI (dist/), on a
 * fresh prefix (nothing remembered), either `sync --once` started again and again, each with `orders` new orders, or
 * one long `worker`. Measured over the whole run, first window included: the other client's share of 429s and this
 * program's orders a minute against the free part; alone (`--other 0`), the seconds until the share is all the budget.
 *
 *   npx tsx bench/shared-start.ts [--shape fresh|worker] [--total 1200] [--other 400] [--seconds 240] [--orders 150]
 *     [--on-429] [--window fixed|offset|sliding|token-bucket] [--rise N] [--other-lead 60] [--tsx]
 * The sandbox counts in the window shape asked (src/sandbox/budget-windows.ts; fixed windows aligned on the epoch by
 * default).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { readShares } from '../src/client/budget/share-status.js';
import { startFeedServer, type FeedServer } from '../src/feed/feed-server.js';
import { createRedis, deleteKeysUnder, redisKeys } from '../src/redis/connection.js';
import { startSandbox } from '../src/sandbox/sandbox.js';
import { buildDist } from './lib/build-dist.js';
import { spawnCli, type CliProcess } from './lib/cli-process.js';
import { startOtherClient } from '../test/kit/other-client.js';
import { benchOrders } from './lib/order-records.js';
import { STREAMS } from '../jobs/kinds.js';
import { sandboxEnv } from '../src/app/sandbox-config.js';
import type { WindowShape } from '../src/sandbox/sandbox-options.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const WINDOW_MS = 60_000;
const TOKEN = 'bench-token';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

export interface SharedStartOptions {
  shape: 'fresh' | 'worker';
  rateHeaders: 'every-answer' | 'on-429';
  /** How the sandbox counts the total. Default 'fixed'. */
  window?: WindowShape;
  /** INVENTORY_RATE_START_RISE_PERCENT of the program. Default: the program's default. */
  rise?: number;
  /**
   * Seconds the other client has been running before this program starts (its counts are from this program's
   * start). Default 60: a window of its own before, as a connector already at work is; 1 starts the two together.
   */
  otherLead?: number;
  total?: number;
  other?: number;
  /** Seconds of the run: no `sync --once` starts after them; the worker stops at them. Default 240. */
  seconds?: number;
  /** Orders of each `sync --once`. Default 150. */
  orders?: number;
  /** Run the sources through tsx instead of dist/. */
  tsx?: boolean;
  /** dist/ is built already (runs side by side: a build blocks every run's event loop). */
  built?: boolean;
  redisUrl?: string;
  log?: (line: string) => void;
}

export interface SharedStartFigures {
  shape: 'fresh' | 'worker';
  rateHeaders: 'every-answer' | 'on-429';
  window: WindowShape;
  total: number;
  other: number;
  /** Seconds from the program's start (the other client's otherLead before) to the end of the run. */
  seconds: number;
  processes: number;
  orders: number;
  ordersPerMinute: number;
  /** ordersPerMinute / ((total - other) / 4). */
  ofFree: number;
  otherSent: number;
  otherRateLimited: number;
  otherShare429: number;
  /** The same within the first minute of the program. */
  firstMinuteShare429: number;
  /** Seconds from the program's start until the total's share was all of the budget (null: never in the run). */
  fullAfterSeconds: number | null;
  /**
   * The service's windows in which the other client met 429s: its 429s, and the share of the total (factor and
   * reason) when the first of them came (tells a slow start's crossing from a probe's).
   */
  harm: WindowHarm[];
  /** Seconds from the program's start of each of the other client's 429s (the first 40). */
  other429At: number[];
}

export interface WindowHarm {
  /** Seconds from the program's start to the window's start (negative: the window it started in). */
  at: number;
  rateLimited: number;
  factor: number;
  reason: string;
}

export async function runSharedStart(o: SharedStartOptions): Promise<SharedStartFigures> {
  const total = o.total ?? 1_200;
  const otherPerMinute = o.other ?? 400;
  const seconds = o.seconds ?? 240;
  const perRun = o.orders ?? 150;
  const log = o.log ?? (() => undefined);
  const redisUrl = o.redisUrl ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const dist = o.tsx ? false : o.built || buildDist(ROOT, log);
  const dir = mkdtempSync(join(tmpdir(), 'isync-shared-start-'));
  const sandbox = await startSandbox({
    data: 'demo',
    latency: { ms: 50, jitterMs: 10 },
    budgets: { total: { limit: total, windowMs: WINDOW_MS }, rateHeaders: o.rateHeaders, window: o.window ?? 'fixed' },
  });
  const prefix = `bench-shared-start-${o.window ?? 'fixed'}-${randomUUID().slice(0, 8)}`;
  const keys = redisKeys(prefix);
  const redis = createRedis(redisUrl);
  const other = otherPerMinute > 0 ? startOtherClient({ ...sandbox, perMinute: otherPerMinute }) : undefined;
  const feeds: FeedServer[] = [];
  const absolute = () => other?.counts() ?? { sent: 0, ok: 0, rateLimited: 0, other: 0 };
  let base = absolute();
  const counts = () => {
    const c = absolute();
    return { sent: c.sent - base.sent, ok: c.ok - base.ok, rateLimited: c.rateLimited - base.rateLimited, other: c.other - base.other };
  };
  const feed = async (n: number, tag: string) => {
    const f = await startFeedServer({ port: 0, names: STREAMS, streams: { orders: benchOrders(tag, n) }, token: TOKEN });
    feeds.push(f);
    return f;
  };
  const cli = (args: string[], f: FeedServer, name: string): CliProcess =>
    spawnCli({
      root: ROOT,
      name,
      args,
      env: {
        REDIS_URL: redisUrl,
        QUEUE_PREFIX: prefix,
        ...sandboxEnv(sandbox),
        INVENTORY_REQUESTS_PER_MINUTE: String(total),
        INVENTORY_POST_PER_MINUTE: String(total),
        INVENTORY_GET_PER_MINUTE: String(total),
        UPSTREAM_URL: f.url,
        UPSTREAM_TOKEN: TOKEN,
        ORDER_POLL_SECONDS: '1',
        WORKER_HTTP_PORT: '0',
        LOG_LEVEL: 'warn',
        ...(o.rise === undefined ? {} : { INVENTORY_RATE_START_RISE_PERCENT: String(o.rise) }),
      },
      logFile: join(dir, `${name}.log`),
      useDist: dist,
    });
  let processes = 0;
  let fullAfter: number | null = null;
  try {
    await sleep((other ? (o.otherLead ?? 60) : 1) * 1_000);
    base = absolute();
    const started = Date.now();
    const a0 = sandbox.admin.counters().actions;
    let firstMinute: ReturnType<typeof counts> | undefined;
    // The other client's 429s by window of the service (fixed windows from the epoch), with the share at the first.
    const harm = new Map<number, WindowHarm>();
    let last429 = 0;
    // The share's last samples (250 ms apart): a 429's own drop is not what led to it, the one a second before is.
    const shares: Array<{ factor: number; reason: string }> = [];
    const watch = setInterval(() => {
      const now = Date.now();
      if (!firstMinute && now - started >= 60_000) firstMinute = counts();
      const rl = counts().rateLimited;
      if (rl > last429) {
        const w = Math.floor(now / WINDOW_MS) * WINDOW_MS;
        const h = harm.get(w) ?? { at: round((w - started) / 1000), rateLimited: 0, ...(shares[0] ?? { factor: 1, reason: 'configured' }) };
        h.rateLimited += rl - last429;
        harm.set(w, h);
        last429 = rl;
      }
      void readShares(redis, keys).then((s) => {
        shares.push({ factor: round(s.total.factor, 3), reason: s.total.reason });
        if (shares.length > 5) shares.shift();
        if (fullAfter === null && s.total.factor >= 1 && s.total.reason === 'configured' && sandbox.admin.counters().actions > a0)
          fullAfter = (Date.now() - started) / 1000;
      });
    }, 250);
    try {
      if (o.shape === 'worker') {
        const f = await feed(Math.ceil(((total / 4) * seconds) / 60) + 100, `START-W-${Date.now()}`);
        const p = cli(['worker'], f, 'worker');
        processes = 1;
        await sleep(Math.max(0, started + seconds * 1_000 - Date.now()));
        await p.stop(10_000);
      } else {
        for (let i = 0; Date.now() - started < seconds * 1_000; i++) {
          // Each run a feed of new orders from its start (the cursor is the feed's, not the orders').
          await redis.del(keys.cursor('orders'));
          const f = await feed(perRun, `START-F${i}-${Date.now()}`);
          const before = sandbox.admin.counters().actions;
          const code = await cli(['sync', '--once', '--stream', 'orders'], f, `sync-${i}`).exited;
          processes++;
          const done = sandbox.admin.counters().actions - before;
          log(`  sync --once ${i + 1}: exit ${code}, ${done} orders, at ${round((Date.now() - started) / 1000)} s`);
          if (code !== 0) throw new Error(`sync --once exited ${code}: see ${join(dir, `sync-${i}.log`)}`);
        }
      }
    } finally {
      clearInterval(watch);
    }
    const runSeconds = (Date.now() - started) / 1000;
    const c = counts();
    const orders = sandbox.admin.counters().actions - a0;
    const ordersPerMinute = (orders / runSeconds) * 60;
    const fm = firstMinute ?? c;
    return {
      shape: o.shape,
      rateHeaders: o.rateHeaders,
      window: o.window ?? 'fixed',
      total,
      other: otherPerMinute,
      seconds: round(runSeconds),
      processes,
      orders,
      ordersPerMinute: round(ordersPerMinute),
      ofFree: round(ordersPerMinute / ((total - otherPerMinute) / 4), 3),
      otherSent: c.sent,
      otherRateLimited: c.rateLimited,
      otherShare429: round(c.rateLimited / Math.max(1, c.sent), 4),
      firstMinuteShare429: round(fm.rateLimited / Math.max(1, fm.sent), 4),
      fullAfterSeconds: fullAfter === null ? null : round(fullAfter),
      harm: [...harm.values()],
      other429At: (other?.rateLimitedAt() ?? [])
        .filter((t) => t >= started)
        .slice(0, 40)
        .map((t) => round((t - started) / 1000)),
    };
  } finally {
    await other?.stop();
    await Promise.all(feeds.map((f) => f.close()));
    await sandbox.close();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values: v } = parseArgs({
    options: {
      shape: { type: 'string' },
      total: { type: 'string' },
      other: { type: 'string' },
      seconds: { type: 'string' },
      orders: { type: 'string' },
      'on-429': { type: 'boolean' },
      window: { type: 'string' },
      rise: { type: 'string' },
      'other-lead': { type: 'string' },
      built: { type: 'boolean' },
      tsx: { type: 'boolean' },
    },
  });
  const num = (s: string | undefined) => (s === undefined ? undefined : Number(s));
  const f = await runSharedStart({
    shape: v.shape === 'worker' ? 'worker' : 'fresh',
    rateHeaders: v['on-429'] ? 'on-429' : 'every-answer',
    window: (v.window ?? 'fixed') as WindowShape,
    rise: num(v.rise),
    otherLead: num(v['other-lead']),
    total: num(v.total),
    other: num(v.other),
    seconds: num(v.seconds),
    orders: num(v.orders),
    tsx: v.tsx,
    built: v.built,
    log: console.log,
  });
  console.log(JSON.stringify(f));
}
