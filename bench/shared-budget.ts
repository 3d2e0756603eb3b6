/**
 * A total budget shared with another client of the account (issue 22): the sandbox allows `total` requests a
 * minute for every client together (fixed 1-minute windows, X-RateLimit-* on every answer, or on 429s only with
 * --on-429); another client
 * (test/kit/other-client.ts) spends `other` of them a minute, paced and deaf to the answers; `processes` worker
 * processes of this program share INVENTORY_REQUESTS_PER_MINUTE = total. Measured: this program's orders a minute
 * and the other client's share of 429s, once with the adaptive rate on and once off (the behaviour before it).
 *
 *   npx tsx bench/shared-budget.ts [--total 1200] [--other 400] [--seconds 90] [--warmup 30] [--processes 3] [--latency 50]
 *     [--on-429] [--off]
 *
 * The measurement starts `warmup` s after the first completed order, and never before the end of the first whole
 * window of the service after it, nor of the window in which the workers were first answered 429: a window is spent
 * before anything is known of the others when the service tells nothing but 429s.
 */
import type { ChildProcess } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import type { SandboxProfile } from '../src/sandbox/sandbox-options.js';
import { startSandbox } from '../src/sandbox/sandbox.js';
import { startOtherClient } from '../test/kit/other-client.js';
import { records, setUp, spawnWorker, stopWorker } from './orders-bench-world.js';

export interface SharedBudgetOptions {
  total?: number;
  other?: number;
  seconds?: number;
  /** Seconds after the first completed order before measuring (the share settles within a window). Default 30. */
  warmupSeconds?: number;
  processes?: number;
  latencyMs?: number;
  adaptive: boolean;
  /** Which of the sandbox's answers carry X-RateLimit-* (docs/sandbox.md). Default 'every-answer'. */
  rateHeaders?: 'every-answer' | 'on-429';
  profile?: SandboxProfile;
  log?: (line: string) => void;
}

export interface SharedBudgetFigures {
  adaptive: boolean;
  rateHeaders: 'every-answer' | 'on-429';
  /** Seconds from the first completed order to the start of the measurement. */
  warmupSeconds: number;
  total: number;
  other: number;
  seconds: number;
  /** (total - other) / 4: the orders a minute the free part of the budget allows. */
  fairPerMinute: number;
  ordersPerMinute: number;
  /** ordersPerMinute / fairPerMinute. */
  ofFair: number;
  otherSent: number;
  otherRateLimited: number;
  /** otherRateLimited / otherSent. */
  otherShare429: number;
  /** 429s this program's workers were answered during the measurement. */
  workers429: number;
  /** The same during the warm-up, for the other client: what the share costs before it settles. */
  warmupOtherShare429: number;
}

/** The sandbox's window for the total (fixed, aligned on the epoch). */
const WINDOW_MS = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

export async function runSharedBudget(o: SharedBudgetOptions): Promise<SharedBudgetFigures> {
  const total = o.total ?? 1_200;
  const otherPerMinute = o.other ?? 400;
  const seconds = o.seconds ?? 90;
  const warmup = o.warmupSeconds ?? 30;
  const processes = o.processes ?? 3;
  const latencyMs = o.latencyMs ?? 50;
  const log = o.log ?? (() => undefined);
  const rateHeaders = o.rateHeaders ?? 'every-answer';
  const sandbox = await startSandbox({
    data: 'demo',
    profile: o.profile,
    latency: latencyMs ? { ms: latencyMs, jitterMs: Math.round(latencyMs / 5) } : null,
    budgets: { total: { limit: total, windowMs: WINDOW_MS }, rateHeaders },
  });
  const world = await setUp(sandbox, 'redis://127.0.0.1:6379', `shared-${o.adaptive ? 'on' : 'off'}-${rateHeaders}`);
  const children: ChildProcess[] = [];
  const other = startOtherClient({
    url: sandbox.url,
    account: sandbox.account,
    key: sandbox.key,
    secret: sandbox.secret,
    perMinute: otherPerMinute,
  });
  try {
    await world.add(
      records(`SHARED-${o.adaptive ? 'ON' : 'OFF'}-${Date.now()}`, Math.ceil((total / 4) * ((seconds + warmup + 60) / 60)) + 50),
    );
    const settings = world.settings({
      budget: { postPerMinute: total, getPerMinute: total, requestsPerMinute: total },
      concurrency: 4,
      sizedConcurrency: true,
      adaptiveRate: o.adaptive,
    });
    for (let i = 0; i < processes; i++) children.push(await spawnWorker(settings));
    while (sandbox.admin.counters().actions === 0) await sleep(20);
    const w0 = other.counts();
    const started = Date.now();
    // Until the warm-up is over, the first whole window of the service the workers ran through has ended (at the
    // configured rate, with the others beside it, it is where a service that tells nothing but 429s is first met
    // spent), and the window of the workers' first 429, if any came, has ended.
    let measureFrom = Math.max(started + warmup * 1_000, Math.ceil(started / WINDOW_MS) * WINDOW_MS + WINDOW_MS + 500);
    let first429 = false;
    while (Date.now() < measureFrom) {
      if (!first429 && sandbox.admin.counters().rateLimited > other.counts().rateLimited) {
        first429 = true;
        measureFrom = Math.max(measureFrom, Math.ceil(Date.now() / WINDOW_MS) * WINDOW_MS + 500);
      }
      await sleep(Math.min(200, Math.max(0, measureFrom - Date.now())));
    }
    const warmupSeconds = round((Date.now() - started) / 1000);
    const c0 = sandbox.admin.counters();
    const o0 = other.counts();
    log(
      `  shared (adaptive ${o.adaptive ? 'on' : 'off'}, headers ${rateHeaders}): measuring ${seconds} s from ${warmupSeconds} s after the first completed order`,
    );
    await sleep(seconds * 1_000);
    const c1 = sandbox.admin.counters();
    const o1 = other.counts();
    const done = c1.actions - c0.actions;
    const ordersPerMinute = (done / seconds) * 60;
    const fair = (total - otherPerMinute) / 4;
    const otherSent = o1.sent - o0.sent;
    const otherRateLimited = o1.rateLimited - o0.rateLimited;
    return {
      adaptive: o.adaptive,
      rateHeaders,
      warmupSeconds,
      total,
      other: otherPerMinute,
      seconds,
      fairPerMinute: fair,
      ordersPerMinute: round(ordersPerMinute),
      ofFair: round(ordersPerMinute / fair, 3),
      otherSent,
      otherRateLimited,
      otherShare429: round(otherRateLimited / Math.max(1, otherSent), 4),
      workers429: c1.rateLimited - c0.rateLimited - otherRateLimited,
      warmupOtherShare429: round((o0.rateLimited - w0.rateLimited) / Math.max(1, o0.sent - w0.sent), 4),
    };
  } finally {
    await other.stop();
    await Promise.all(children.map(stopWorker));
    await world.tearDown();
    await sandbox.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : undefined;
  };
  const off = process.argv.includes('--off');
  const f = await runSharedBudget({
    total: arg('total'),
    other: arg('other'),
    seconds: arg('seconds'),
    warmupSeconds: arg('warmup'),
    processes: arg('processes'),
    latencyMs: arg('latency'),
    adaptive: !off,
    rateHeaders: process.argv.includes('--on-429') ? 'on-429' : 'every-answer',
    log: console.log,
  });
  console.log(JSON.stringify(f));
}
