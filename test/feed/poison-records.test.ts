import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFeedServer, type FeedServer } from '../../src/feed/feed-server.js';
import { UpstreamClient } from '../../src/feed/upstream-client.js';
import { waitForIdle } from '../../src/queue/drain.js';
import { importNdjson } from '../../src/feed/importer.js';
import type { PullStreamOptions } from '../../src/feed/producer.js';
import { jobIdFor } from '../../src/queue/job-id.js';
import { addJobs, recordJob, type RecordJob } from '../../src/queue/record-jobs.js';
import { done, order, pullOrders, queueWorld, testKind, type QueueWorld } from '../queue/support.js';
import { STREAMS } from '../../jobs/kinds.js';
import { orderKind } from '../../jobs/orders/order-kind.js';

let w: QueueWorld;
let feed: FeedServer;

beforeEach(async () => {
  w = await queueWorld('poison');
  feed = await startFeedServer({ names: STREAMS, pageSize: 100 });
});
afterEach(async () => {
  await feed.close();
  await w.close();
});

const CAP = 64 * 1024;
const deep = Buffer.from(`{"orderId":"WEB-DEEP","origin":"Main Warehouse","lines":${'['.repeat(10_000)}${']'.repeat(10_000)}}`);
const large = Buffer.from(JSON.stringify({ ...order('WEB-LARGE'), pad: 'x'.repeat(CAP + 1) }));
const notUtf8 = Buffer.concat([Buffer.from('{"orderId":"WEB-UTF8","origin":"Main '), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
const keyless = Buffer.from(`{"origin":"Main Warehouse","lines":${'['.repeat(50)}${']'.repeat(50)}}`);
/** Good orders with poison among them, as the feed serves them. */
const mixed = () => [order('WEB-1'), deep, order('WEB-2'), large, order('WEB-3'), notUtf8, keyless, order('WEB-4')];

const pull = (over: Partial<PullStreamOptions> = {}) =>
  pullOrders(w, new UpstreamClient({ url: feed.url, retries: 0, maxRecordBytes: CAP, maxPageBytes: 4 * CAP }), over);

/** Works the orders queue off with a kind that syncs every valid record; answers each job's state and reason. */
async function processAll(): Promise<Map<string, { state: string; reason?: string; attempts: number }>> {
  const pool = await w.startPool([testKind('orders', async () => done())]);
  try {
    await waitForIdle([w.queues.get('orders')], { pollMs: 50 });
  } finally {
    await pool.close(1000);
  }
  const jobs = await w.queues.get('orders').getJobs(['completed', 'failed']);
  return new Map(
    await Promise.all(
      jobs.map(async (j) => [String(j.id), { state: await j.getState(), reason: j.failedReason, attempts: j.attemptsMade }] as const),
    ),
  );
}

describe('poison records', () => {
  describe('when a feed page holds records that cannot be read among good ones', () => {
    it('queues every record, each poison one failing alone as BAD_RECORD with its reason, and the cursor passes them', async () => {
      feed.append('orders', mixed());
      const result = await pull({ pageSize: 3 });
      expect(result).toMatchObject({ queued: 8, invalid: 4, caughtUp: true });
      // The next pull starts after them: nothing is fetched again.
      feed.append('orders', [order('WEB-5')]);
      expect(await pull()).toMatchObject({ pages: 1, queued: 1, invalid: 0 });

      const jobs = await processAll();
      for (const n of [1, 2, 3, 4, 5]) expect(jobs.get(jobIdFor(orderKind, order(`WEB-${n}`)))?.state, `WEB-${n}`).toBe('completed');
      const failed = [...jobs.entries()].filter(([, j]) => j.state === 'failed');
      expect(failed.map(([, j]) => j.attempts)).toEqual([1, 1, 1, 1]);
      const reasons = failed.map(([id, j]) => `${id} ${j.reason}`).sort();
      expect(reasons).toEqual([
        expect.stringMatching(/^orders-WEB-DEEP-[0-9a-f]{12} \[BAD_RECORD\] record WEB-DEEP: \(record\): nested deeper than 32 levels$/),
        expect.stringMatching(
          new RegExp(
            `^orders-WEB-LARGE-[0-9a-f]{12} \\[BAD_RECORD\\] record WEB-LARGE: \\(record\\): is ${large.length} bytes, larger than the cap of 65536 bytes \\(MAX_RECORD_BYTES\\)$`,
          ),
        ),
        expect.stringMatching(/^orders-WEB-UTF8-[0-9a-f]{12} \[BAD_RECORD\] record WEB-UTF8: \(record\): is not valid UTF-8$/),
        expect.stringMatching(
          /^orders-invalid-[0-9a-f]{12} \[BAD_RECORD\] record \(no orderId\) orders-invalid-[0-9a-f]{12}: \(record\): nested deeper than 32 levels$/,
        ),
      ]);
    });

    it('finds a re-delivered poison record already queued', async () => {
      feed.append('orders', [deep, large]);
      await pull();
      feed.append('orders', [deep, large]);
      expect(await pull()).toMatchObject({ queued: 0, duplicates: 2 });
    });
  });

  describe('when the records of a page pass FEED_MAX_PAGE_BYTES', () => {
    it('asks again with half the limit until they fit, and queues them all', async () => {
      const big = (n: number) => ({ ...order(`WEB-${n}`), pad: 'y'.repeat(CAP / 2) });
      feed.append(
        'orders',
        Array.from({ length: 20 }, (_, n) => big(n)),
      );
      const result = await pull();
      expect(result).toMatchObject({ queued: 20, invalid: 0, caughtUp: true });
      expect(w.logLines().some((l) => String(l.msg).includes('feed page too large; asking for'))).toBe(true);
    });
  });

  describe('when a record cannot be given its job id', () => {
    it('becomes a job of its own that fails at once, and the page is queued', async () => {
      let tooDeep: unknown = 1;
      for (let i = 0; i < 100; i++) tooDeep = [tooDeep];
      const jobs = [order('WEB-1'), { ...order('WEB-X'), lines: tooDeep }, order('WEB-2')].map((r) => recordJob(orderKind, r, 'feed'));
      expect(jobs.map((j) => j.valid)).toEqual([true, false, true]);
      expect(jobs[1]!.job).toMatchObject({
        opts: { jobId: expect.stringMatching(/^orders-WEB-X-/) },
        data: { parseError: 'nested deeper than 32 levels', key: 'WEB-X' },
      });
      expect(
        await addJobs(
          w.queues.get('orders'),
          w.redis,
          jobs.map((j) => j.job),
          orderKind,
        ),
      ).toEqual({ queued: 3, duplicates: 0 });
    });
  });

  describe('when Redis refuses one job of a batch', () => {
    it('adds the others, and a stand-in that fails at once for the refused one', async () => {
      const good = [order('WEB-1'), order('WEB-2')].map((r) => recordJob(orderKind, r, 'feed').job);
      // Job data that cannot be serialized (no feed record can be: this stands for any refusal of one job).
      const refused: RecordJob = {
        name: 'orders',
        data: { record: { orderId: 'WEB-BIGINT', n: 1n }, source: 'feed' },
        opts: { jobId: 'orders-WEB-BIGINT-000000000000' },
      };
      expect(await addJobs(w.queues.get('orders'), w.redis, [good[0]!, refused, good[1]!], orderKind)).toEqual({
        queued: 3,
        duplicates: 0,
      });
      const stand = await w.queues.get('orders').getJob('orders-WEB-BIGINT-000000000000');
      expect(stand?.data).toMatchObject({
        record: '',
        key: 'WEB-BIGINT',
        parseError: expect.stringMatching(/^could not be queued \(.*BigInt/),
      });
      expect(await w.queues.get('orders').getWaitingCount()).toBe(3);
    });
  });

  describe('when an imported line is nested too deep', () => {
    it('fails alone, named by its key and line, and the lines after it are queued', async () => {
      const lines = [
        JSON.stringify(order('WEB-1')),
        `{"orderId":"WEB-DEEP","lines":${'['.repeat(20_000)}${']'.repeat(20_000)}}`,
        JSON.stringify(order('WEB-2')),
      ];
      const result = await importNdjson({
        kind: orderKind,
        source: Readable.from([`${lines.join('\n')}\n`]),
        queues: w.queues,
        redis: w.redis,
        logger: w.logger,
      });
      expect(result).toMatchObject({ records: 3, queued: 3, invalid: 1, malformed: 1 });
      const pool = await w.startPool([testKind('orders', async () => done())]);
      try {
        await waitForIdle([w.queues.intake('orders'), w.queues.get('orders')], { pollMs: 50 });
      } finally {
        await pool.close(1000);
      }
      const failed = await w.queues.get('orders').getJobs(['failed']);
      expect(failed.map((j) => j.failedReason)).toEqual(['[BAD_RECORD] record WEB-DEEP (line 2): (line): nested deeper than 32 levels']);
      expect(await w.queues.get('orders').getCompletedCount()).toBe(2);
    });
  });
});
