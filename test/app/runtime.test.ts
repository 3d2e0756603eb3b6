import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readConfig } from '../../config/read-config.js';
import { buildDeps, type AppDeps } from '../../src/app/build-deps.js';
import { startFeedServer, type FeedServer } from '../../src/feed/feed-server.js';
import { BadRecordError } from '../../src/queue/job-errors.js';
import { importAndMaybeProcess, syncOnce, type RunProgress } from '../../src/app/runtime.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { deletePrefix, redisUrl, uniquePrefix } from '../helpers/redis.js';
import { captureLogger, done, order, settleMeta, testKind } from '../queue/support.js';
import { STREAMS, programKinds } from '../../jobs/kinds.js';
import { orderKind } from '../../jobs/orders/order-kind.js';
import { probeOnce } from '../../src/queue/hold/outage-probe.js';
import { isOutage } from '../../src/queue/hold/outage-state.js';

const TOKEN = 'upstream-token-7f3a9';

let sandbox: Sandbox;
let feed: FeedServer;
let deps: AppDeps;
let logLines: () => Array<Record<string, unknown>>;
let dir: string;

beforeEach(async () => {
  sandbox = await startSandbox({ data: 'demo' });
  feed = await startFeedServer({ names: STREAMS, token: TOKEN, pageSize: 40 });
  dir = await mkdtemp(join(tmpdir(), 'runtime-'));
  const config = readConfig(
    {
      INVENTORY_BASE_URL: sandbox.url,
      INVENTORY_ACCOUNT: sandbox.account,
      INVENTORY_API_KEY: sandbox.key,
      INVENTORY_API_SECRET: sandbox.secret,
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: uniquePrefix('runtime'),
      UPSTREAM_URL: feed.url,
      UPSTREAM_TOKEN: TOKEN,
      JOB_ATTEMPTS: '2',
      RETRY_BASE_DELAY_MS: '20',
      RETRY_MAX_DELAY_MS: '50',
      FEED_PAGE_SIZE: '40',
      WORKER_CONCURRENCY: '8',
      // No budget to wait for (the defaults: 2 writes a second, catalog reads 12 s apart): the runs are under test here.
      INVENTORY_POST_PER_MINUTE: '100000',
      INVENTORY_GET_PER_MINUTE: '100000',
      INVENTORY_COLLECTION_PER_HOUR: '100000',
    },
    {},
    programKinds,
  );
  const captured = captureLogger();
  logLines = captured.lines;
  deps = buildDeps(config, captured.logger, { kinds: programKinds });
  await settleMeta(deps.queues);
});
afterEach(async () => {
  await deletePrefix(deps.redis, deps.config.redis.prefix);
  await deps.close();
  await feed.close();
  await sandbox.close();
  await rm(dir, { recursive: true, force: true });
});

/** A test kind that checks each line's product in the real catalog (read from the sandbox). */
const catalogChecked = testKind('orders', async (record, ctx) => {
  for (const [i, line] of record.lines.entries()) {
    if (!(await ctx.catalog.product(line.productId)))
      throw new BadRecordError(record.orderId, `lines.${i}.productId`, `unknown product ${line.productId}`);
  }
  return done(`checked ${record.orderId}`);
});

const orders = (n: number) => Array.from({ length: n }, (_, i) => order(`WEB-${i + 1}`));

describe('sync --once', () => {
  describe('when the feed has good and bad records', () => {
    it('pulls until caught up, processes until idle and lists the failures', async () => {
      const unknown = { ...order('WEB-X'), lines: [{ productId: 'NOPE', quantity: 1, unitPrice: 1, location: 'Main Warehouse / A-01' }] };
      feed.append('orders', [...orders(100), unknown, { orderId: 'WEB-Y' }]);
      const progress: RunProgress[] = [];
      const summary = await syncOnce(deps, {
        kinds: [catalogChecked],
        streams: ['orders'],
        onProgress: (p) => progress.push(p),
        pollMs: 50,
      });

      expect(summary.ok).toBe(false);
      const s = summary.perStream.orders!;
      expect(s).toMatchObject({ queued: 102, invalid: 1, completed: 100 });
      const failed = Object.fromEntries(s.failed.map((f) => [f.key, f.reason]));
      expect(Object.keys(failed).sort()).toEqual(['WEB-X', 'WEB-Y']);
      expect(failed['WEB-X']).toBe('[BAD_RECORD] record WEB-X: lines.0.productId: unknown product NOPE');
      expect(failed['WEB-Y']).toMatch(/^\[BAD_RECORD\] record WEB-Y: origin: .+ \(and lines: is required\)$/);
      expect(progress.find((p) => p.phase === 'pulled')).toMatchObject({ stream: 'orders', result: { pages: 3, caughtUp: true } });
      expect(feed.counters().requests.orders).toBe(3);
      expect(JSON.stringify(logLines())).not.toContain(TOKEN);
    });

    it('counts only what the run itself did when run again', async () => {
      feed.append('orders', orders(10));
      expect((await syncOnce(deps, { kinds: [catalogChecked], pollMs: 50 })).perStream.orders).toMatchObject({ queued: 10, completed: 10 });
      feed.append('orders', [order('WEB-3'), order('WEB-11')]);
      const again = await syncOnce(deps, { kinds: [catalogChecked], pollMs: 50 });
      expect(again.ok).toBe(true);
      expect(again.perStream.orders).toMatchObject({ queued: 1, duplicates: 1, completed: 1, failed: [] });
    });
  });
});

describe('sync --once through a service outage', () => {
  it('waits while the service is down (with no attempt spent past JOB_ATTEMPTS) and ends with every order synced once', async () => {
    // The catalog is read while the service answers.
    feed.append('orders', [order('WARM-1')]);
    expect((await syncOnce(deps, { kinds: [orderKind], streams: ['orders'], pollMs: 50 })).ok).toBe(true);
    feed.append('orders', orders(6));
    sandbox.admin.setFaults([{ kind: 'status-503' }]);
    const run = syncOnce(deps, {
      kinds: [orderKind],
      streams: ['orders'],
      pollMs: 50,
      workers: { outage: { probe: () => probeOnce(deps.client), firstProbeMs: 200, probeMaxMs: 400, lookMs: 50 } },
    });
    // JOB_ATTEMPTS is 2, 20-50 ms apart: once held, 3 s of 503s outlast every job's retries many times over.
    const limit = Date.now() + 30_000;
    while (!(await isOutage(deps.redis, deps.keys)) && Date.now() < limit) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await isOutage(deps.redis, deps.keys)).toBe(true);
    expect(await deps.queues.get('orders').getJobCounts('failed')).toEqual({ failed: 0 });
    sandbox.admin.setFaults([]);
    const summary = await run;
    expect(summary.ok).toBe(true);
    expect(summary.perStream.orders).toMatchObject({ queued: 6, completed: 6, failed: [] });
    expect(sandbox.admin.counters().creates).toMatchObject({ order: 7, shipment: 7 });
    expect(await isOutage(deps.redis, deps.keys)).toBe(false);
  }, 60_000);
});

describe('import', () => {
  describe('when the file has a malformed line', () => {
    it('queues every line, processes them with --process, and names the bad line', async () => {
      const file = join(dir, 'orders.ndjson');
      const lines = orders(60).map((o) => JSON.stringify(o));
      lines.splice(49, 0, '{"orderId": "WEB-BROKEN",');
      await writeFile(file, `${lines.join('\n')}\n`);

      const { imported, summary } = await importAndMaybeProcess(deps, {
        kinds: [catalogChecked],
        stream: 'orders',
        source: file,
        process: true,
        pollMs: 50,
        batchSize: 25,
      });
      expect(imported).toMatchObject({ lines: 61, records: 61, queued: 61, invalid: 1, malformed: 1, batches: 3 });
      expect(summary?.ok).toBe(false);
      expect(summary?.perStream.orders?.completed).toBe(60);
      const [failed] = summary!.perStream.orders!.failed;
      expect(failed?.key).toBe('WEB-BROKEN (line 50)');
      expect(failed?.reason).toMatch(/^\[BAD_RECORD\] record WEB-BROKEN \(line 50\): \(line\): not valid JSON/);
    });

    it('counts a batch that cannot become jobs as a failure of the run', async () => {
      await deps.queues
        .intake('orders')
        .add('orders', { stream: 'orders', source: 'import', firstLine: 1, lastLine: 1, items: [{ line: 1 }] } as never, {
          jobId: 'intake-orders-corrupt',
        });
      const file = join(dir, 'orders.ndjson');
      await writeFile(
        file,
        orders(3)
          .map((o) => JSON.stringify(o))
          .join('\n'),
      );
      const { summary } = await importAndMaybeProcess(deps, {
        kinds: [catalogChecked],
        stream: 'orders',
        source: file,
        process: true,
        pollMs: 50,
      });
      expect(summary?.ok).toBe(false);
      expect(summary?.perStream.orders?.completed).toBe(3);
      expect(summary?.perStream.orders?.failed).toEqual([
        {
          id: 'intake-orders-corrupt',
          key: 'intake-orders-corrupt',
          reason: expect.stringMatching(/^\[BAD_BATCH\] intake job intake-orders-corrupt: not a batch of records \(items\.0\.id: /),
          batch: true,
          // Not a batch: the same job again fails the same way.
          retryHelps: false,
        },
      ]);
    });

    it('only queues without --process, and a second import of the same file adds nothing', async () => {
      const file = join(dir, 'orders.ndjson');
      await writeFile(
        file,
        orders(30)
          .map((o) => JSON.stringify(o))
          .join('\n'),
      );
      const first = await importAndMaybeProcess(deps, { kinds: [], stream: 'orders', source: file, process: false });
      expect(first.summary).toBeUndefined();
      expect(first.imported).toMatchObject({ queued: 30, duplicates: 0, batches: 1 });
      // Queued as one intake batch; the first worker to run turns it into 30 record jobs.
      expect(await deps.queues.intake('orders').getWaitingCount()).toBe(1);
      expect(await deps.queues.get('orders').getWaitingCount()).toBe(0);
      const second = await importAndMaybeProcess(deps, { kinds: [], stream: 'orders', source: file, process: false });
      expect(second.imported).toMatchObject({ queued: 0, duplicates: 30 });
    });
  });
});
