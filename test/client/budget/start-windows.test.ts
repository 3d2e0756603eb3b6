import type { Redis } from 'ioredis';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { RequestBudget } from '../../../src/client/budget/budget.js';
import { readShares, type LaneShare } from '../../../src/client/budget/share-status.js';
import { redisKeys, type RedisKeys } from '../../../src/redis/connection.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/sandbox.js';
import { WINDOW_SHAPES, type WindowShape } from '../../../src/sandbox/sandbox-options.js';
import { startOtherClient, type OtherClient } from '../../kit/other-client.js';
import { connect, deletePrefix, uniquePrefix } from '../../helpers/redis.js';

/**
 * The slow start's probe on each shape of the service's windows (the sandbox's, over HTTP): a total of 80 in 4 s (the
 * 1,200 a minute the program is told, in windows short enough for a test), X-RateLimit-* on 429s only.
 */
const TOTAL = { postPerMinute: 1200, getPerMinute: 1200, collectionPerHour: 3600, requestsPerMinute: 1200, headroom: 0.98 };
const WINDOW_MS = 4_000;
const LIMIT = 80;
/** Steps of 0.05 every 250 ms: 80% of the budget a 4 s window (the defaults rise 300% a minute's window, in steps every 1 s). */
const SHARES = { floor: 0.1, start: 0.5, account: 'acme', startStep: 0.05, startStepMs: 250, yieldStepMs: 200 };
/**
 * The other client's most 429s (a share of its requests) over three windows from this program's start, when it was at
 * work a window before. A fixed window spent refuses it until its end whatever this program does then
 * (docs/budget-start.md, "The trade on fixed windows"); where the 429 tells of no window's end, the pulses make the
 * crossing this program's 429 (a token bucket refilled faster than this program sends, evenly spaced, refused the
 * other client 20% to 31% of its requests before pulses: docs/budget-start.md, "Pulses").
 */
const MOST_REFUSED: Record<WindowShape, number> = { fixed: 0.2, offset: 0.2, sliding: 0.08, 'token-bucket': 0.08 };
/** The shapes whose 429 at the crossing tells of no window's end (a reset within 2 s), so that the lane yields. */
const YIELDING: ReadonlySet<WindowShape> = new Set(['sliding', 'token-bucket']);

/** One test's world: its own Redis prefix, a sandbox counting in `shape`, torn down when the test ends. */
async function startWorld(
  shape: WindowShape,
  onFinished: (fn: () => Promise<void>) => void,
  rateHeaders: 'on-429' | 'every-answer' = 'on-429',
) {
  const redis: Redis = connect();
  const keys: RedisKeys = redisKeys(uniquePrefix(`start-${shape}`));
  const sandbox: Sandbox = await startSandbox({
    port: 0,
    data: 'demo',
    budgets: { total: { limit: LIMIT, windowMs: WINDOW_MS }, rateHeaders, resetUnit: 'ms', window: shape, burst: 8 },
  });
  const agent = new Agent({ keepAliveTimeout: 10_000 });
  const w = { redis, keys, sandbox, other: undefined as OtherClient | undefined };
  onFinished(async () => {
    await w.other?.stop();
    await agent.close();
    await sandbox.close();
    await deletePrefix(redis, keys.prefix);
    await redis.quit();
  });
  const total = async () => (await readShares(redis, keys)).total;
  /** This program: GETs back to back for `ms`, each when the budget allows, its answers read as the client does. */
  const run = async (b: RequestBudget, ms: number, onShare: (f: number, reason: string, at: number, s: LaneShare) => boolean | void) => {
    const auth = `Basic ${Buffer.from(`${sandbox.key}:${sandbox.secret}`).toString('base64')}`;
    const sends: Array<{ at: number; status: number }> = [];
    const until = Date.now() + ms;
    while (Date.now() < until) {
      await b.acquire('get');
      const res = await request(`${sandbox.url}/${sandbox.account}/api/product/10003`, {
        dispatcher: agent,
        headers: { authorization: auth },
      });
      await res.body.dump();
      sends.push({ at: Date.now(), status: res.statusCode });
      const headers = res.headers as Record<string, string>;
      await b.observe('get', res.statusCode, headers);
      if (res.statusCode === 429) await b.hold('get', Number(headers['x-ratelimit-reset']));
      const s = await total();
      if (onShare(s.factor, s.reason, Date.now(), s) === true) break;
    }
    return sends;
  };
  const budget = async () => {
    const b = new RequestBudget({ redis, keys, budgets: TOTAL, shares: SHARES });
    await b.acquire('get');
    // The service's window as learnt from its resets (4 s, not the minute configured).
    await redis.hset(keys.budgetShare('total'), 'winLen', WINDOW_MS, 'learned', '1');
    return b;
  };
  return { ...w, total, run, budget, w };
}

// The shapes' tests run side by side (each has its own sandbox and prefix): they wait on windows, not on the CPU.
describe.concurrent.each(WINDOW_SHAPES)('the slow start on %s windows', (shape: WindowShape) => {
  it('alone: rises a step at a time to the full budget, and meets no 429', async ({ onTestFinished }) => {
    const { sandbox, total, run, budget } = await startWorld(shape, onTestFinished);
    const b = await budget();
    const seen: number[] = [];
    let fullAt = 0;
    const started = Date.now();
    await run(b, 8_000, (f, _r, at) => {
      if (f !== seen.at(-1)) seen.push(f);
      if (f >= 1 && fullAt === 0) fullAt = at;
      return fullAt > 0;
    });
    expect(sandbox.admin.counters().rateLimited).toBe(0);
    // Ten steps of 0.05 from 0.5, one at a time, in about 2.5 s (a step every 250 ms at least).
    expect(seen.length).toBeGreaterThanOrEqual(8);
    for (let i = 1; i < seen.length; i++) expect(seen[i]! - seen[i - 1]!).toBeLessThanOrEqual(0.0501);
    expect(fullAt - started).toBeGreaterThan(2_200);
    // (Slower on a busy machine: a step waits until the last one was used.)
    expect(fullAt - started).toBeLessThan(7_500);
    expect((await total()).reason).toBe('configured');
  }, 15_000);

  it('beside another client: the first 429 sets the share to about what it leaves, and it meets few 429s after', async ({
    onTestFinished,
  }) => {
    const { sandbox, run, budget, w } = await startWorld(shape, onTestFinished);
    // A third of the total: 400 a minute; what it leaves is (1,200 - 400 / 0.98) / 1,200 = 0.66 of the budget.
    const other = startOtherClient({ ...sandbox, perMinute: 400 });
    w.other = other;
    const b = await budget();
    let first: { f: number; reason: string; at: number } | undefined;
    let last = 0.5;
    // Until two windows after the first 429 (at most 16 s).
    const sends = await run(b, 16_000, (f, reason, at) => {
      if (!first && reason === 'shared-429') first = { f, reason, at };
      if (!first) expect(f).toBeGreaterThanOrEqual(last);
      last = f;
      return first !== undefined && at > first.at + 2 * WINDOW_MS;
    });
    expect(first).toBeDefined();
    // Crossed by a step or so, then down to about what the other client leaves (a fixed window's count, read from the
    // 429) or to 0.6 of the share it crossed at (a 429 that tells of no window's end), not halved.
    expect(first!.f).toBeGreaterThan(0.45);
    expect(first!.f).toBeLessThan(0.85);
    // A window after the first 429: this program near what is free; the other client refused little over the run.
    const from = first!.at + WINDOW_MS;
    const ok = sends.filter((s) => s.at > from && s.status === 200).length;
    const c = other.counts();
    // (At least 0.9 of the pace of the share the crossing set, never lowered again: it is at or under what the other
    // leaves. Where the 429 tells of no window's end, the crossing keeps 0.6 of the share it crossed at.)
    expect(ok / (Date.now() - from)).toBeGreaterThan((0.9 * first!.f * TOTAL.headroom * LIMIT) / WINDOW_MS);
    // (The windows are short, so a probe's step past what it leaves comes every 4 s: more often than in a minute's windows.)
    expect(c.rateLimited / c.sent).toBeLessThan(0.15);
  }, 25_000);

  // (Headers on every answer too where a reset within 2 s tells of no window: there the share is read from 429s; a
  // fixed window's Remaining is test/cli/shared-budget.test.ts's.)
  it.for(YIELDING.has(shape) ? (['on-429', 'every-answer'] as const) : (['on-429'] as const))(
    'beside a client at work a window before, headers %s: the crossing yields to it, and this program keeps near what is free',
    // Again up to twice: on a loaded machine the loop may send under its share's pace and cross late, more than a window
    // after its first request, when the yield that lasts until that request leaves the window is over before it is
    // read (seen once in CI: crossed, never seen yielding). A crossing that never yields fails every time.
    { timeout: 25_000, retry: 2 },
    async (rateHeaders, { onTestFinished }) => {
      const { sandbox, run, budget, w } = await startWorld(shape, onTestFinished, rateHeaders);
      const other = startOtherClient({ ...sandbox, perMinute: 400 });
      w.other = other;
      await new Promise((r) => setTimeout(r, WINDOW_MS));
      const before = other.counts();
      const b = await budget();
      const started = Date.now();
      let yielded = false;
      const sends = await run(b, 3 * WINDOW_MS, (_f, _r, _at, s) => {
        yielded ||= s.yieldsUntil !== null;
      });
      const c = other.counts();
      const refused = (c.rateLimited - before.rateLimited) / (c.sent - before.sent);
      const ok = sends.filter((x) => x.status === 200).length;
      // What is free: two thirds of the total, 160 in three windows; this program got most of it.
      expect(ok).toBeGreaterThan(0.6 * ((2 * LIMIT) / 3) * ((Date.now() - started) / WINDOW_MS));
      expect(refused).toBeLessThan(MOST_REFUSED[shape]);
      // (With the headers on every answer, the same: Remaining whose reset is within 2 s tells of no window, and the
      // share is read from 429s there; a fixed window's Remaining tells what the others leave.)
      // Where the 429 tells of no window's end, the crossing kept part of the share and yielded (status said so), and
      // the other client was refused (almost) nothing from a second after this program's first 429 on. (On a loaded
      // machine the loop, one request after the other, may never reach what is free: no crossing, nothing to yield.)
      const crossed = sends.find((x) => x.status === 429);
      if (YIELDING.has(shape) && crossed) {
        expect(yielded).toBe(true);
        expect(other.rateLimitedAt().filter((t) => t > crossed.at + 1_000).length).toBeLessThanOrEqual(2);
      }
    },
  );
});
