import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RequestBudget } from '../../../src/client/budget/budget.js';
import { redisKeys, type RedisKeys } from '../../../src/redis/connection.js';
import { fixtureBundle } from '../../helpers/fixture-bundle.js';
import { connect, defaultRedisGuard, deletePrefix, redisUrl, uniquePrefix } from '../../helpers/redis.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const BURNER = fileURLToPath(new URL('../../fixtures/budget-burner.ts', import.meta.url));

interface Burner {
  ready: Promise<void>;
  start(at: number): void;
  result: Promise<{ pid: number; sent: number[] }>;
}

function spawnBurner(prefix: string, perMinute: number, durationMs: number): Burner {
  const child = spawn(
    process.execPath,
    [...defaultRedisGuard(), fixtureBundle(BURNER), redisUrl(), prefix, String(perMinute), String(durationMs), '4'],
    {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  let out = '';
  let onReady: () => void;
  const ready = new Promise<void>((r) => (onReady = r));
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.startsWith('ready\n')) onReady();
  });
  const result = new Promise<{ pid: number; sent: number[] }>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (code !== 0 || !line) reject(new Error(`burner exited ${code}: ${out}`));
      else resolve(JSON.parse(line) as { pid: number; sent: number[] });
    });
  });
  return { ready, start: (at) => child.stdin.end(`${at}\n`), result };
}

const budgets = (postPerMinute: number) => ({ postPerMinute, getPerMinute: 6000, collectionPerHour: 3600, headroom: 0.98 });

describe('request budget', () => {
  let prefix: string;
  let keys: RedisKeys;
  const conns: Redis[] = [];
  const redis = () => {
    const r = connect();
    conns.push(r);
    return r;
  };

  beforeEach(() => {
    prefix = uniquePrefix('budget');
    keys = redisKeys(prefix);
  });
  afterEach(async () => {
    if (conns[0]) await deletePrefix(conns[0], prefix);
    await Promise.all(conns.splice(0).map((c) => c.quit()));
  });

  describe('when two processes take from one budget as fast as they can', () => {
    it('keeps their combined rate within the budget, and near it', async () => {
      redis();
      const perMinute = 1200;
      const durationMs = 3000;
      const burners = [spawnBurner(prefix, perMinute, durationMs), spawnBurner(prefix, perMinute, durationMs)];
      await Promise.all(burners.map((b) => b.ready));
      const startAt = Date.now() + 200;
      for (const b of burners) b.start(startAt);
      const results = await Promise.all(burners.map((b) => b.result));

      const sent = results.flatMap((r) => r.sent).sort((a, b) => a - b);
      // Requests allowed during the run, as a rate (a late timer cannot inflate a count, only a span).
      const perMinuteSeen = (sent.length / durationMs) * 60_000;
      if (process.env.SHOW_FIGURES) console.log({ sent: sent.length, perMinuteSeen, byProcess: results.map((r) => r.sent.length) });
      expect(perMinuteSeen).toBeLessThanOrEqual(perMinute);
      expect(perMinuteSeen).toBeGreaterThanOrEqual(perMinute * 0.9);
      // Both processes got a fair part of it.
      for (const r of results) expect(r.sent.length).toBeGreaterThan(sent.length * 0.3);
      // And no second of the run saw more than the limit allows (fixed windows, as a server counts; one more
      // for a timer that fired late and pushed its request across a window edge).
      const perSecond = new Map<number, number>();
      for (const t of sent) perSecond.set(Math.floor(t / 1000), (perSecond.get(Math.floor(t / 1000)) ?? 0) + 1);
      for (const n of perSecond.values()) expect(n).toBeLessThanOrEqual(perMinute / 60 + 1);
    }, 30_000);
  });

  describe('when one process is answered 429', () => {
    it('holds the class for every process until the reset, then releases it', async () => {
      const a = new RequestBudget({ redis: redis(), keys, budgets: budgets(6000) });
      const b = new RequestBudget({ redis: redis(), keys, budgets: budgets(6000) });
      // "No wait" below allows for Redis round trips on a loaded machine; the holds are over a second.
      expect(await b.acquire('post')).toBeLessThan(300);

      const resetAt = Date.now() + 1200;
      await a.hold('post', resetAt);
      expect((await b.stats()).heldUntil.post).toBeGreaterThan(Date.now());
      // Other classes go on.
      expect(await b.acquire('get')).toBeLessThan(300);

      const waited = await b.acquire('post');
      expect(Date.now()).toBeGreaterThanOrEqual(resetAt - 5);
      expect(waited).toBeGreaterThan(1000);

      // Released: the next request waits one spacing interval at most.
      expect(await b.acquire('post')).toBeLessThan(300);
      const stats = await a.stats();
      expect(stats.heldUntil.post).toBeUndefined();
      expect(stats.holds.post).toBe(1);
      expect(stats.requests.post).toBe(3);
    });

    it('moves a request that was already waiting for its slot to after the reset', async () => {
      const a = new RequestBudget({ redis: redis(), keys, budgets: budgets(120) }); // one post every ~510 ms
      const b = new RequestBudget({ redis: redis(), keys, budgets: budgets(120) });
      await b.acquire('post');
      const waiting = b.acquire('post'); // reserved ~510 ms ahead
      await new Promise((r) => setTimeout(r, 100));
      const resetAt = Date.now() + 1500;
      await a.hold('post', resetAt);
      await waiting;
      expect(Date.now()).toBeGreaterThanOrEqual(resetAt - 5);
    });
  });

  describe('when the event loop stalls past a reserved slot', () => {
    it('leaves the passed slot unused and takes a new one, so late requests do not crowd the next window', async () => {
      const b = new RequestBudget({ redis: redis(), keys, budgets: budgets(120) }); // a slot every 510 ms; 600 ms late is too late
      await b.acquire('post');
      const waiting = b.acquire('post');
      await new Promise((r) => setTimeout(r, 20)); // let it reserve its slot
      const until = Date.now() + 1400;
      while (Date.now() < until); // a stalled event loop
      await waiting;
      expect((await b.stats()).requests.post).toBe(3);
    });
  });

  describe('a collection GET', () => {
    it('spends both collection and get budget, and spaces collections by the hourly budget', async () => {
      const b = new RequestBudget({
        redis: redis(),
        keys,
        budgets: { postPerMinute: 60, getPerMinute: 6000, collectionPerHour: 36_000, headroom: 1 },
        burst: { collection: 0 },
      });
      const t0 = Date.now();
      await b.acquire('collection');
      expect((await b.stats()).waitedMs.collection).toBe(0);
      // 36 000 an hour is one every 100 ms.
      await b.acquire('collection');
      expect(Date.now() - t0).toBeGreaterThanOrEqual(99);
      const stats = await b.stats();
      expect(stats.waitedMs.collection).toBeGreaterThan(0);
      expect(stats.requests).toMatchObject({ collection: 2, get: 2, post: 0 });
    });
  });

  describe('with a total budget beside the classes', () => {
    const withTotal = (requestsPerMinute: number) => ({
      postPerMinute: 6000,
      getPerMinute: 6000,
      collectionPerHour: 360_000,
      requestsPerMinute,
      headroom: 1,
    });

    it('spaces every request of every class and process by the total, and stays near it', async () => {
      // 600 a minute: one request every 100 ms, whichever class and process takes it.
      const a = new RequestBudget({ redis: redis(), keys, budgets: withTotal(600) });
      const b = new RequestBudget({ redis: redis(), keys, budgets: withTotal(600) });
      const sent: number[] = [];
      const take = async (budget: RequestBudget, cls: 'post' | 'get' | 'collection', n: number) => {
        for (let i = 0; i < n; i++) {
          await budget.acquire(cls);
          sent.push(Date.now());
        }
      };
      const t0 = Date.now();
      await Promise.all([take(a, 'post', 8), take(a, 'post', 8), take(b, 'get', 8), take(b, 'collection', 4)]);
      const elapsed = Date.now() - t0;
      // 28 requests: the first at once, then 27 intervals of 100 ms.
      expect(elapsed).toBeGreaterThanOrEqual(2_650);
      expect(elapsed).toBeLessThan(4_000);
      sent.sort((x, y) => x - y);
      // No 1-second window saw more than the total allows (10), plus the slots of requests woken late: a request
      // may go out up to 250 ms (MIN_LATE_MS at headroom 1) after its slot, so a window holds the slots of 1.25 s.
      for (const t of sent) expect(sent.filter((u) => u >= t && u < t + 1000).length).toBeLessThanOrEqual(13);
      const stats = await a.stats();
      expect(stats.requests).toMatchObject({ post: 16, get: 12, collection: 4, total: 28 });
    });

    it('holds every class after a 429 whose reset is within the total window, but not after a longer one', async () => {
      const a = new RequestBudget({ redis: redis(), keys, budgets: withTotal(6000) });
      const b = new RequestBudget({ redis: redis(), keys, budgets: withTotal(6000) });
      // A collection 429 an hour away is the collection budget's: posts and gets go on.
      await a.hold('collection', Date.now() + 3600_000);
      expect(await b.acquire('post')).toBeLessThan(300);
      // A post 429 reset 1.2 s away may be the total's: a get waits for it too.
      const resetAt = Date.now() + 1200;
      await a.hold('post', resetAt);
      expect((await b.stats()).heldUntil.total).toBeGreaterThan(Date.now());
      expect(await b.acquire('get')).toBeGreaterThan(1000);
      expect(Date.now()).toBeGreaterThanOrEqual(resetAt - 5);
      expect((await b.stats()).holds).toMatchObject({ post: 1, collection: 1 });
    });

    it('without a total, spends none and holds none', async () => {
      const b = new RequestBudget({ redis: redis(), keys, budgets: budgets(6000) });
      await b.acquire('post');
      await b.hold('post', Date.now() + 1000);
      const stats = await b.stats();
      expect(stats.requests.total).toBe(0);
      expect(stats.heldUntil.total).toBeUndefined();
    });
  });

  describe('when unlimited', () => {
    it('never waits and needs no Redis, except to honour its own 429 holds', async () => {
      const b = RequestBudget.unlimited();
      for (let i = 0; i < 1000; i++) expect(await b.acquire('post')).toBe(0);
      await b.hold('get', Date.now() + 300);
      expect(await b.acquire('post')).toBe(0);
      expect(await b.acquire('collection')).toBeGreaterThan(200);
      expect((await b.stats()).requests).toMatchObject({ post: 1001, collection: 1, get: 1 });
    });
  });
});
