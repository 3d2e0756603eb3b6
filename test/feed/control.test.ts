import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFeedServer, type FeedServer } from '../../src/feed/feed-server.js';
import { startControl, type Control, type StartControlOptions } from '../../src/feed/control.js';
import { readScheduleInfo } from '../../src/feed/schedule-info.js';
import { order, queueWorld, sleep, type QueueWorld } from '../queue/support.js';
import { STREAMS } from '../../jobs/kinds.js';
import { programKinds } from '../../jobs/kinds.js';
import { kindOf } from '../../src/records/records.js';
import { until } from '../kit/until.js';
import { feedControlOptions } from '../kit/control-options.js';

let w: QueueWorld;
let feed: FeedServer;
let control: Control | undefined;

beforeEach(async () => {
  w = await queueWorld('control');
  feed = await startFeedServer({ names: STREAMS, token: 'feed-token' });
});
afterEach(async () => {
  await control?.removeSchedules();
  await control?.close(1_000);
  control = undefined;
  await feed.close();
  await w.close();
});

/** The schedulers on this test's prefix, pulling from its feed server; the test says the schedule. */
function startTestControl(o: Pick<StartControlOptions, 'schedule'> & Partial<StartControlOptions>): Promise<Control> {
  return startControl({
    kinds: programKinds,
    ...feedControlOptions(w, feed),
    ...o,
  });
}

const count = {
  countId: 'CNT-1',
  location: 'Main Warehouse / A-01',
  countDate: '2026-11-21',
  items: [{ productId: 'MUG-BLUE', quantity: 4 }],
};

describe('control schedulers', () => {
  describe('when the schedules are fast', () => {
    it('polls orders and BOMs every interval and pulls stock counts on a 6-field cron', async () => {
      feed.append('orders', [order('WEB-1')]);
      feed.append('stock-counts', [count]);
      control = await startTestControl({
        schedule: { orderPollSeconds: 0.5, bomPollSeconds: 0.5, stockSyncCron: '*/1 * * * * *' },
      });

      await until(
        () =>
          (feed.counters().requests.orders ?? 0) >= 3 &&
          (feed.counters().requests.boms ?? 0) >= 3 &&
          (feed.counters().requests['stock-counts'] ?? 0) >= 2,
      );
      expect(await w.queues.get('orders').getWaitingCount()).toBe(1);
      expect(await w.queues.get('stock-counts').getWaitingCount()).toBe(1);
      // Each cron run records its pull under its scheduler.
      expect(JSON.parse((await w.redis.hget(w.keys.schedule(), 'stock-sync.lastResult')) ?? '{}')).toMatchObject({
        duplicates: expect.any(Number),
      });

      // Records that arrive later are picked up by the next poll.
      feed.append('orders', [order('WEB-2')]);
      await until(async () => (await w.queues.get('orders').getWaitingCount()) === 2);

      const info = await control.scheduleInfo();
      expect(info.map((i) => i.scheduler).sort()).toEqual(['poll-boms', 'poll-orders', 'stock-sync']);
      const orders = info.find((i) => i.scheduler === 'poll-orders')!;
      expect(orders).toMatchObject({ stream: 'orders', every: 500, lastOk: true });
      expect(Date.parse(orders.lastRunAt!)).toBeGreaterThan(Date.now() - 5_000);
      expect(Date.parse(orders.nextRunAt!)).toBeGreaterThan(Date.now() - 1_000);
      expect(info.find((i) => i.scheduler === 'stock-sync')).toMatchObject({ pattern: '*/1 * * * * *' });
    });
  });

  describe('when a scheduled pull fails', () => {
    it('records the error for status, and the next run succeeds', async () => {
      // Every pull fails until the test has seen the error recorded: a run 300 ms later must not overwrite it unseen
      // (a loaded machine can take longer than that between two looks; CI failed so once).
      feed.setFaults({ status503Rate: 1 });
      feed.append('orders', [order('WEB-1')]);
      control = await startTestControl({
        schedule: { orderPollSeconds: 0.3, bomPollSeconds: 3600, stockSyncCron: '0 19 * * *' },
        kinds: [kindOf(programKinds, 'orders')],
      });
      await until(async () => (await w.redis.hget(w.keys.schedule(), 'poll-orders.lastOk')) === '0');
      expect(await w.redis.hget(w.keys.schedule(), 'poll-orders.lastError')).toMatch(/503/);
      feed.setFaults({});
      await until(async () => (await w.redis.hget(w.keys.schedule(), 'poll-orders.lastOk')) === '1');
      expect(await w.queues.get('orders').getWaitingCount()).toBe(1);
      const logged = w.logLines().find((l) => l.scheduler === 'poll-orders' && l.level === 50);
      expect(String(logged?.msg)).toMatch(/scheduled pull of orders failed.*503.*next run tries again/);

      // Status reads the schedules without running them.
      await control.close(1_000);
      control = undefined;
      const info = await readScheduleInfo(w.redis, w.keys, programKinds);
      expect(info).toEqual([
        expect.objectContaining({ scheduler: 'poll-orders', every: 300, lastOk: true, lastResult: expect.objectContaining({ queued: 1 }) }),
      ]);
    });
  });
});
