import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFeedServer, type FeedServer } from '../../src/feed/feed-server.js';
import { Queue } from 'bullmq';
import { startControl, type Control, type StartControlOptions } from '../../src/feed/control.js';
import { CONTROL_QUEUE } from '../../src/queue/queues.js';
import { closeBreaker, recordRefusal } from '../../src/queue/hold/refusal-state.js';
import { endOutage, openedAt, recordServiceDown } from '../../src/queue/hold/outage-state.js';
import { openStreamQueues } from '../../src/queue/stream-queues.js';
import { readStatus } from '../../src/ops/status-report.js';
import { order, queueWorld, sleep, type QueueWorld } from '../queue/support.js';
import { STREAMS, programKinds } from '../../jobs/kinds.js';
import { kindOf } from '../../src/records/records.js';
import { until } from '../kit/until.js';
import { feedControlOptions } from '../kit/control-options.js';

// Interval pulls (`every`) run from the deployment's due set: one member per stream, claimed by one process a slot
// (src/feed/due-set.ts); cron pulls too (test/feed/control.test.ts, test/jobs/stock/stock-scheduler.test.ts).

let w: QueueWorld;
let feed: FeedServer;
const controls: Control[] = [];
const orders = kindOf(programKinds, 'orders');

beforeEach(async () => {
  w = await queueWorld('control-tickers');
  feed = await startFeedServer({ names: STREAMS, token: 'feed-token' });
});
afterEach(async () => {
  for (const c of controls.splice(0)) await c.close(1_000);
  await feed.close();
  await w.close();
});

/** One process's control of this test's account (its prefix), pulling only the orders stream every `seconds`. */
async function startOrdersControl(seconds: number, o: Partial<StartControlOptions> = {}): Promise<Control> {
  const control = await startControl({
    kinds: [orders],
    ...feedControlOptions(w, feed),
    schedule: { orderPollSeconds: seconds, bomPollSeconds: 3600, stockSyncCron: '0 19 * * *' },
    ...o,
  });
  controls.push(control);
  return control;
}

const fetches = () => feed.counters().requests.orders ?? 0;

describe('interval pulls', () => {
  describe('when two processes share an account', () => {
    it('pulls once per interval between them, and the other goes on alone when one closes', async () => {
      const [a, b] = [await startOrdersControl(0.4), await startOrdersControl(0.4)];
      await sleep(1_000);
      const before = fetches();
      await sleep(2_000);
      const together = fetches() - before;
      // 5 slots in 2 s; each process alone would pull at every one (10).
      expect(together).toBeGreaterThanOrEqual(3);
      expect(together).toBeLessThanOrEqual(6);

      await a.close(1_000);
      controls.splice(controls.indexOf(a), 1);
      const afterClose = fetches();
      await sleep(2_000);
      const alone = fetches() - afterClose;
      expect(alone).toBeGreaterThanOrEqual(3);
      expect(alone).toBeLessThanOrEqual(6);
    });
  });

  describe('when the control closes', () => {
    it('lets a running pull finish within the grace period, then pulls no more', async () => {
      feed.setFaults({ latencyMs: 600 });
      feed.append('orders', [order('WEB-1')]);
      const control = await startOrdersControl(0.3);
      await until(() => fetches() >= 1);
      await control.close(5_000);
      controls.splice(0);
      // The pull that was running when the close began queued its order and was recorded.
      expect(await w.queues.get('orders').getWaitingCount()).toBe(1);
      expect(await w.redis.hget(w.keys.schedule(), 'poll-orders.lastOk')).toBe('1');
      const closedAt = fetches();
      await sleep(1_200);
      expect(fetches()).toBe(closedAt);
    });
  });

  describe('when the released version left a job scheduler for the stream', () => {
    it('removes it at start, so the stream is not pulled twice', async () => {
      const queue = new Queue(CONTROL_QUEUE, { connection: w.redis, prefix: w.prefix });
      try {
        const data = { stream: 'orders', scheduler: 'poll-orders' };
        await queue.upsertJobScheduler('poll-orders', { every: 60_000 }, { name: 'poll-orders', data });
        expect(await queue.getJobScheduler('poll-orders')).toBeDefined();
        await startOrdersControl(0.5);
        expect(await queue.getJobScheduler('poll-orders')).toBeUndefined();
        expect(await queue.getJobSchedulersCount()).toBe(0);
        expect(await queue.getDelayedCount()).toBe(0);
      } finally {
        await queue.close();
      }
    });
  });

  describe('when status reads the schedules', () => {
    it('shows the ticked stream with its interval and next run, before and after its first pull', async () => {
      const control = await startOrdersControl(2);
      const status = async () => (await readStatus(w.redis, openStreamQueues(w.redis, w.prefix, programKinds))).schedule;
      const first = (await status()).find((s) => s.name === 'poll-orders');
      expect(first).toMatchObject({ stream: 'orders', rule: 'every 2 s' });
      const next = Date.parse(first!.nextRunAt!);
      expect(next).toBeGreaterThan(Date.now() - 500);
      expect(next).toBeLessThanOrEqual(Date.now() + 2_000);

      await until(async () => (await w.redis.hget(w.keys.schedule(), 'poll-orders.lastOk')) === '1');
      const [info] = await control.scheduleInfo();
      expect(info).toMatchObject({ scheduler: 'poll-orders', stream: 'orders', every: 2_000, lastOk: true });
      expect(Date.parse(info!.nextRunAt!)).toBeGreaterThan(Date.parse(info!.lastRunAt!));
    });
  });

  describe('when the stream is held', () => {
    it('queues nothing while its breaker is open or the service is down, and again once it is resumed', async () => {
      feed.append('orders', [order('WEB-1')]);
      const refusal = { threshold: 1, code: 'UNAUTHORIZED', reason: 'token revoked', jobId: 'orders-1' };
      expect((await recordRefusal(w.redis, w.keys, 'orders', refusal)).state).toBe('tripped');
      const down = { threshold: 1, reason: 'service down', firstProbeMs: 60_000 };
      expect((await recordServiceDown(w.redis, w.keys, down)).state).toBe('tripped');
      await startOrdersControl(0.3);
      // A run that did not fetch is kept as missed, with why, never as ok (it is made up once its cause ends).
      const missed = async () => JSON.parse((await w.redis.hget(w.keys.schedule(), 'poll-orders.missed')) ?? '{}').cause;
      await until(async () => (await missed()) === 'paused');
      expect(await w.redis.hget(w.keys.schedule(), 'poll-orders.lastOk')).toBe('0');
      await closeBreaker(w.redis, w.keys, 'orders');
      await until(async () => (await missed()) === 'outage');
      expect(await w.redis.hget(w.keys.schedule(), 'poll-orders.lastOk')).toBe('0');
      // Its first page is asked (an empty feed then costs no read of the holds), and kept in the feed: nothing queued,
      // the cursor where it was.
      expect(fetches()).toBeGreaterThanOrEqual(1);
      expect(await w.queues.get('orders').getWaitingCount()).toBe(0);
      expect(await w.redis.get(w.keys.cursor('orders'))).toBeNull();
      const asked = fetches();

      expect(await endOutage(w.redis, w.keys, (await openedAt(w.redis, w.keys))!, 0)).toBe(true);
      await until(async () => (await w.queues.get('orders').getWaitingCount()) === 1);
      expect(fetches()).toBeGreaterThan(asked);
      await until(async () => (await w.redis.hget(w.keys.schedule(), 'poll-orders.lastOk')) === '1');
      // Cleared by the pull that fetched (an empty field is none: src/feed/scheduled-pull.ts).
      expect((await w.redis.hget(w.keys.schedule(), 'poll-orders.missed')) || null).toBeNull();
    });
  });
});
