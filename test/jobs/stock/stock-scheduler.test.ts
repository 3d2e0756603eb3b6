import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFeedServer, type FeedServer } from '../../../src/feed/feed-server.js';
import { UpstreamClient } from '../../../src/feed/upstream-client.js';
import { createLogger } from '../../../src/log/logger.js';
import { startControl, type Control } from '../../../src/feed/control.js';
import { countRecord } from '../../helpers/count-record.js';
import { testWorld, type TestWorld } from '../../helpers/test-world.js';
import { STREAMS } from '../../../jobs/kinds.js';
import { stockCountKind } from '../../../jobs/stock/stock-count-kind.js';

describe('the stock sync schedule', () => {
  let world: TestWorld;
  let feed: FeedServer;
  let control: Control;
  const counts = [
    countRecord('CNT-CRON-A03', 'A-03', '2026-11-21', [
      ['SKU-0002', 17],
      ['MUG-BLUE', 4],
    ]),
    countRecord('CNT-CRON-N04', 'N-04', '2026-11-21', [['SKU-0009', 0]]),
  ];

  beforeAll(async () => {
    world = await testWorld('stock-cron', { streams: ['stock-counts', 'boms'] });
    feed = await startFeedServer({ names: STREAMS, streams: { 'stock-counts': [] } });
    const logger = createLogger({ level: 'silent' });
    control = await startControl({
      prefix: world.prefix,
      redis: world.redis,
      keys: world.keys,
      upstream: new UpstreamClient({ url: feed.url, retries: 0 }),
      queues: world.queues,
      // A fast cron (every 2 s) stands for the nightly 19:00.
      schedule: { orderPollSeconds: 60, bomPollSeconds: 60, stockSyncCron: '*/2 * * * * *' },
      pageSize: 100,
      logger,
      // The stream's definition begins a stock sync run before each of its pulls.
      kinds: [stockCountKind],
    });
  });
  afterAll(async () => {
    await control?.close(1_000);
    await feed?.close();
    await world?.close();
  });

  const waitFor = async (check: () => Promise<boolean>, ms = 15_000) => {
    const until = Date.now() + ms;
    while (!(await check()) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  };

  it('pulls the counts at the next cron time and applies them', async () => {
    const field = (name: string) => world.redis.hget(world.keys.schedule(), `stock-sync.${name}`);
    // A first run finds the feed empty; the counts arrive afterwards and wait for the next slot.
    await waitFor(async () => (await field('lastOk')) === '1');
    const appendedAt = Date.now();
    feed.append('stock-counts', counts);
    // The run that pulls them, as the schedule hash records it (the next, empty, run replaces it 2 s later).
    let pulled: { queued: number; began: number } | undefined;
    await waitFor(async () => {
      const [result, at] = await world.redis.hmget(world.keys.schedule(), 'stock-sync.lastResult', 'stock-sync.lastRunAt');
      const queued = (JSON.parse(result ?? '{}') as { queued?: number }).queued ?? 0;
      if (queued > 0) pulled = { queued, began: Date.parse(at!) };
      return pulled !== undefined;
    });
    await waitFor(async () => (await world.queues.get('stock-counts').getCompletedCount()) >= counts.length);
    for (const c of counts) {
      const loc = world.facility(c.location);
      for (const item of c.items) expect(world.sandbox.admin.stockOnHand(loc, world.product(item.productId))).toBe(item.quantity);
    }
    expect(pulled?.queued).toBe(counts.length);
    // The run that pulled them began at its cron slot (an even second) after they arrived, and no earlier.
    const began = pulled!.began;
    const slot = began - (began % 2_000);
    expect(slot).toBeGreaterThan(appendedAt);
    expect(began - slot).toBeLessThan(1_000);
    expect(world.calls.filter((c) => c.path.endsWith('/api/inventoryitem'))).toHaveLength(1);
    const info = (await control.scheduleInfo()).find((s) => s.stream === 'stock-counts')!;
    expect(info.pattern).toBe('*/2 * * * * *');
    expect(info.lastOk).toBe(true);
    expect(new Date(info.nextRunAt!).getTime() % 2_000).toBe(0);
  });
});
