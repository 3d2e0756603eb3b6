import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { STREAMS } from '../../jobs/kinds.js';
import { freePort } from '../kit/test-port.js';
import { startFeedServer, type FeedServer } from '../../src/feed/feed-server.js';
import { redisKeys } from '../../src/redis/connection.js';
import { countRecord } from '../helpers/count-record.js';
import { orderRecord } from '../helpers/order-records.js';
import { runCli, type CliRun } from './run-cli.js';
import { SECRETS, startStack, type Stack } from './stack.js';

/** A cursor of the test feed server: the position of the next record (feed-server.ts). */
const cursorAt = (position: number) => `c1.${Buffer.from(`pos:${position}`).toString('base64url')}`;

const goodFeed = {
  orders: [orderRecord('CK-0'), orderRecord('CK-1'), orderRecord('CK-2')],
  'stock-counts': [countRecord('CNT-CK-1', 'Main Warehouse / A-02', '2026-11-21', [['MUG-GREEN', 8]])],
  boms: [{ productId: 'GIFT-SET', components: [{ productId: 'MUG-BLUE', quantity: 2 }] }],
};

describe('check', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack(goodFeed, 'check-cli');
    // The orders stream was pulled up to its second record: check reads from there and leaves the cursor there.
    await stack.redis.set(redisKeys(stack.prefix).cursor('orders'), cursorAt(1));
  });
  afterAll(() => stack?.close());
  // The first case gives the sandbox budgets (for their rate-limit headers), which the client's share in Redis then
  // paces by until the service's reset (up to an hour): a real account does not change its budgets between two checks.
  afterEach(async () => {
    stack.sandbox.admin.setBudgets({});
    const keys = redisKeys(stack.prefix);
    await stack.redis.del(...['post', 'get', 'collection', 'total'].map((lane) => keys.budgetShare(lane)));
  });

  /** Cursors and feed state of every stream, and every queue key: what check must leave as it found it. */
  async function written(): Promise<string> {
    const keys = redisKeys(stack.prefix);
    const cursors = await Promise.all(
      STREAMS.map(async (s) => [s, await stack.redis.get(keys.cursor(s)), await stack.redis.hgetall(keys.feedState(s))]),
    );
    // BullMQ marks a queue it opens with a `meta` key (its version); any other key of a stream's queue is a job.
    const queueKeys = (await stack.redis.keys(`${stack.prefix}:*`))
      .filter((k) => STREAMS.some((s) => k.startsWith(`${stack.prefix}:${s}`)) && !k.endsWith(':meta'))
      .sort();
    return JSON.stringify({ cursors, queueKeys });
  }

  /** Runs check and asserts what every run must hold: only GETs reached the service, nothing moved, no secret shown. */
  async function check(args: string[], env: Record<string, string> = stack.env): Promise<CliRun> {
    const before = await written();
    const sentBefore = stack.sandbox.admin.requests().length;
    const r = await runCli(['check', ...args], env, { timeoutMs: 60_000 });
    const sent = stack.sandbox.admin.requests().slice(sentBefore);
    expect(
      sent.filter((q) => q.method !== 'GET'),
      'check wrote to the service',
    ).toEqual([]);
    expect(await written(), 'check moved a cursor or queued a job').toBe(before);
    for (const secret of Object.values(SECRETS)) {
      expect(r.stdout + r.stderr).not.toContain(secret);
    }
    return r;
  }

  describe('against the sandbox and a feed that names only what the account has', () => {
    it("exits 0 and reports the facility tree, the product figures, Redis and each stream's first page in --json", async () => {
      stack.sandbox.admin.setBudgets({ get: { limit: 1000, windowMs: 60_000 }, collection: { limit: 500, windowMs: 3_600_000 } });
      const r = await check(['--json']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const report = JSON.parse(r.stdout);
      expect(report).toMatchObject({
        verdict: 'ready',
        exitCode: 0,
        gaps: [],
        service: { state: 'ok', problem: null, account: stack.sandbox.account },
      });
      expect(report.service.facilities).toMatchObject({ magazines: 2, locations: 10, orphans: [] });
      const tree = Object.fromEntries(
        report.service.facilities.tree.map((m: { name: string; locations: Array<{ name: string }> }) => [
          m.name,
          m.locations.map((l) => l.name),
        ]),
      );
      expect(tree).toEqual({
        'Main Warehouse': ['A-01', 'A-02', 'A-03', 'A-04', 'A-05', 'A-06'],
        'North Depot': ['N-01', 'N-02', 'N-03', 'N-04'],
      });
      // 240 SKUs (every third with another URL id), 7 named products (3 with another), 4 inactive (2 with another).
      expect(report.service.products).toMatchObject({ count: 251, active: 247, inactive: 4, urlDiffers: 85 });
      expect(report.service.rateLimit.sent).toMatchObject({
        'x-ratelimit-limit': expect.any(String),
        'x-ratelimit-remaining': expect.any(String),
        'x-ratelimit-reset': expect.any(String),
      });
      expect(report.service.rateLimit.budgets).toMatchObject({ postPerMinute: 6000, getPerMinute: 6000, collectionPerHour: 3000 });
      expect(report.redis).toMatchObject({ mode: 'single', prefix: stack.prefix, maxmemoryPolicy: expect.any(String), pendingTotal: 0 });
      expect(report.redis.version).toMatch(/^\d+\.\d+/);
      expect(report.redis.queued.map((q: { stream: string }) => q.stream)).toEqual([...STREAMS]);
      const streams = Object.fromEntries(report.feed.streams.map((s: { stream: string }) => [s.stream, s]));
      expect(streams.orders).toMatchObject({ state: 'ok', cursor: cursorAt(1), records: 2, valid: 2, bad: [], hasMore: false });
      expect(streams['stock-counts']).toMatchObject({ state: 'ok', cursor: null, records: 1, valid: 1 });
      expect(streams.boms).toMatchObject({ state: 'ok', records: 1, valid: 1 });
    });

    it('prints readable sections by default, and "none sent" when the service sends no rate-limit headers', async () => {
      const r = await check([]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain(': READY');
      expect(r.stdout).toContain('facilities: 2 magazines, 10 locations');
      expect(r.stdout).toMatch(/Main Warehouse: 6 locations \(A-01, A-02/);
      expect(r.stdout).toContain('products: 251 (247 active, 4 inactive); 85 with a URL whose id is not their productId');
      expect(r.stdout).toContain('rate-limit headers sent: none sent');
      expect(r.stdout).toContain(`prefix: ${stack.prefix}`);
      expect(r.stdout).toMatch(/orders\s+c1\.\S+\s+ok\s+2\s+2\s+0\s+no/);
      expect(r.stdout).toContain('Mapping gaps: none');
    });

    it('counts the jobs already queued per stream, and warns of them without failing', async () => {
      const queue = new Queue('boms', { connection: stack.redis, prefix: stack.prefix });
      try {
        await queue.add('boms', { record: goodFeed.boms[0], source: 'feed' }, { jobId: 'boms-queued-before', delay: 60_000 });
        const r = await check(['--json']);
        expect(r.code, r.stdout + r.stderr).toBe(0);
        const report = JSON.parse(r.stdout);
        expect(report.redis.pendingTotal).toBe(1);
        expect(report.redis.queued).toContainEqual({ stream: 'boms', pending: 1, failed: 0, batches: 0 });
        expect(report.warnings).toContainEqual(
          expect.stringContaining(`1 job or import batch is already queued under the prefix ${stack.prefix}`),
        );
      } finally {
        await queue.obliterate({ force: true });
        await queue.close();
      }
    });
  });

  describe('when the service refuses or is away', () => {
    it('names a wrong secret (401) with what to do, and exits 3', async () => {
      // At debug, so that every log line is searched for the secret too.
      const r = await check(['--json'], { ...stack.env, INVENTORY_API_SECRET: 'not-the-secret', LOG_LEVEL: 'debug' });
      expect(r.code, r.stderr).toBe(3);
      const report = JSON.parse(r.stdout);
      expect(report).toMatchObject({
        verdict: 'unreachable',
        gaps: null,
        service: { state: 'refusing', problem: { code: 'SERVICE_UNAUTHORIZED', status: 401 }, facilities: null },
      });
      expect(report.service.problem.hint).toContain('INVENTORY_API_KEY and INVENTORY_API_SECRET');
      expect(r.stdout).not.toContain('not-the-secret');
      const table = await check([], { ...stack.env, INVENTORY_API_SECRET: 'not-the-secret' });
      expect(table.code).toBe(3);
      expect(table.stdout).toContain('refused the credentials (HTTP 401) [SERVICE_UNAUTHORIZED]');
      expect(table.stdout).toContain('What to do: Check INVENTORY_API_KEY and INVENTORY_API_SECRET');
    });

    it('names a wrong account (404) with what to do, and exits 3', async () => {
      const r = await check([], { ...stack.env, INVENTORY_ACCOUNT: 'no-such-account' });
      expect(r.code, r.stderr).toBe(3);
      expect(r.stdout).toContain(`no account at ${stack.sandbox.url}/no-such-account/api`);
      expect(r.stdout).toContain('[SERVICE_NO_ACCOUNT]');
      expect(r.stdout).toContain('What to do: Check INVENTORY_ACCOUNT');
      expect(r.stdout).toContain('Mapping gaps: not compared');
    });

    it('exits 3 when nothing answers at INVENTORY_BASE_URL, and still reads the feed', async () => {
      const r = await check(['--json'], { ...stack.env, INVENTORY_BASE_URL: `http://127.0.0.1:${await freePort()}` });
      expect(r.code, r.stderr).toBe(3);
      const report = JSON.parse(r.stdout);
      expect(report).toMatchObject({
        verdict: 'unreachable',
        gaps: null,
        service: { state: 'unreachable', problem: { code: 'SERVICE_UNREACHABLE' } },
      });
      expect(report.feed.streams.every((s: { state: string }) => s.state === 'ok')).toBe(true);
    });
  });

  describe('when the feed names what the account lacks', () => {
    let feed: FeedServer;
    beforeAll(async () => {
      feed = await startFeedServer({
        names: STREAMS,
        token: SECRETS.token,
        streams: {
          orders: [
            orderRecord('GAP-1', [{ productId: 'NO-SUCH', quantity: 1, unitPrice: 1, location: 'Main Warehouse / A-01' }]),
            orderRecord('GAP-2', [
              { productId: 'NO-SUCH', quantity: 1, unitPrice: 1, location: 'Main Warehouse / Z-99' },
              { productId: 'NO-SUCH', quantity: 2, unitPrice: 1, location: 'A-02' },
            ]),
            orderRecord('GAP-3', undefined, { origin: 'A-03' }),
            orderRecord('GAP-4', [{ productId: 'MUG-BLUE', quantity: 0, unitPrice: 1, location: 'A-01' }]),
          ],
          'stock-counts': [countRecord('CNT-GAP', 'Main Warehouse / Z-99', '2026-11-21', [['MUG-BLUE', 3]])],
        },
      });
    });
    afterAll(() => feed?.close());
    beforeAll(() => stack.redis.del(redisKeys(stack.prefix).cursor('orders')));

    it('lists each unknown product and location with how many records name it, and exits 1', async () => {
      const env = { ...stack.env, UPSTREAM_URL: feed.url };
      const r = await check(['--json'], env);
      expect(r.code, r.stdout + r.stderr).toBe(1);
      const report = JSON.parse(r.stdout);
      expect(report.verdict).toBe('gaps');
      expect(report.gaps).toEqual([
        {
          what: 'facility',
          name: 'Main Warehouse / Z-99',
          problem: 'unknown',
          want: 'location',
          records: 2,
          streams: ['orders', 'stock-counts'],
          examples: ['GAP-2', 'CNT-GAP'],
          candidates: [],
        },
        {
          what: 'product',
          name: 'NO-SUCH',
          problem: 'unknown',
          want: null,
          records: 2,
          streams: ['orders'],
          examples: ['GAP-1', 'GAP-2'],
          candidates: [],
        },
        {
          what: 'facility',
          name: 'A-03',
          problem: 'not-a-magazine',
          want: 'magazine',
          records: 1,
          streams: ['orders'],
          examples: ['GAP-3'],
          candidates: [expect.stringContaining('Main Warehouse / A-03 (location')],
        },
      ]);
      const orders = report.feed.streams.find((s: { stream: string }) => s.stream === 'orders');
      expect(orders).toMatchObject({
        records: 4,
        valid: 3,
        bad: [{ record: 'GAP-4', problems: ['lines.0.quantity: must be greater than 0'] }],
      });

      const table = await check([], env);
      expect(table.code).toBe(1);
      expect(table.stdout).toContain('Mapping gaps (3):');
      expect(table.stdout).toMatch(/facility\s+Main Warehouse \/ Z-99\s+not in the account\s+2\s+orders, stock-counts\s+GAP-2, CNT-GAP/);
      expect(table.stdout).toMatch(/product\s+NO-SUCH\s+not in the account\s+2\s+orders\s+GAP-1, GAP-2/);
      expect(table.stdout).toMatch(/orders\s+GAP-4\s+lines\.0\.quantity: must be greater than 0/);
    });
  });

  describe('with a mapping file', () => {
    let feed: FeedServer;
    let mapping: string;
    beforeAll(async () => {
      feed = await startFeedServer({
        names: STREAMS,
        token: SECRETS.token,
        streams: {
          orders: [
            orderRecord('MAP-1', [{ productId: 'SKU-9', quantity: 1, unitPrice: 1, location: 'WH1-A1' }], { origin: 'WH1' }),
            orderRecord('MAP-2', [{ productId: 'SKU-GONE', quantity: 1, unitPrice: 1, location: 'WH1-A1' }], { origin: 'WH1' }),
          ],
        },
      });
      const dir = mkdtempSync(join(tmpdir(), 'isync-check-map-'));
      mapping = join(dir, 'mapping.csv');
      writeFileSync(
        mapping,
        'kind,upstream,service\nproduct,SKU-9,MUG-BLUE\nproduct,SKU-GONE,NO-SUCH-PRODUCT\nfacility,WH1,Main Warehouse\nfacility,WH1-A1,Main Warehouse / A-01\n',
      );
    });
    afterAll(() => feed?.close());
    beforeAll(() => stack.redis.del(redisKeys(stack.prefix).cursor('orders')));

    it('shows each mapped name with what it maps to, and a gap under its mapped name', async () => {
      const env = { ...stack.env, UPSTREAM_URL: feed.url, MAPPING_FILE: mapping };
      const r = await check(['--json'], env);
      expect(r.code, r.stdout + r.stderr).toBe(1);
      const report = JSON.parse(r.stdout);
      expect(report.mapped).toEqual([
        { what: 'facility', name: 'WH1', to: 'Main Warehouse', records: 2 },
        { what: 'facility', name: 'WH1-A1', to: 'Main Warehouse / A-01', records: 2 },
        { what: 'product', name: 'SKU-9', to: 'MUG-BLUE', records: 1 },
        { what: 'product', name: 'SKU-GONE', to: 'NO-SUCH-PRODUCT', records: 1 },
      ]);
      expect(report.gaps).toEqual([
        expect.objectContaining({ what: 'product', name: 'SKU-GONE', mappedTo: 'NO-SUCH-PRODUCT', problem: 'unknown', records: 1 }),
      ]);
      const table = await check([], env);
      expect(table.stdout).toMatch(/facility\s+WH1\s+Main Warehouse\s+2/);
      expect(table.stdout).toMatch(/product\s+SKU-GONE → NO-SUCH-PRODUCT\s+not in the account\s+1/);
    });
  });

  describe('when the feed cannot be read', () => {
    it('exits 3 when the feed is down, and still reports the service and Redis', async () => {
      const r = await check(['--json'], { ...stack.env, UPSTREAM_URL: `http://127.0.0.1:${await freePort()}` });
      expect(r.code, r.stderr).toBe(3);
      const report = JSON.parse(r.stdout);
      expect(report).toMatchObject({ verdict: 'unreachable', gaps: null, service: { state: 'ok' }, redis: { prefix: stack.prefix } });
      for (const s of report.feed.streams) expect(s).toMatchObject({ state: 'unreachable', problem: { code: 'FEED_UNREACHABLE' } });
    });

    it('tells a refused token (401) apart, and exits 3', async () => {
      const r = await check([], { ...stack.env, UPSTREAM_TOKEN: 'not-the-token' });
      expect(r.code, r.stderr).toBe(3);
      expect(r.stdout).toMatch(/orders\s+\S+\s+FEED_UNAUTHORIZED/);
      expect(r.stdout).toContain('What to do: The feed refused the token: check UPSTREAM_TOKEN');
    });
  });
});
