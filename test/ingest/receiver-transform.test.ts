import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { programKinds } from '../../jobs/kinds.js';
import { loadTransforms } from '../../src/feed/load-transforms.js';
import type { Transform } from '../../src/feed/transform.js';
import { fixedSigningKeys } from '../../src/ingest/signing-keys.js';
import { startReceiver, type Receiver } from '../../src/ingest/receiver.js';
import { createLogger } from '../../src/log/logger.js';
import { orderRecord, syncedOnce } from '../helpers/order-records.js';
import { testWorld, type TestWorld } from '../helpers/test-world.js';
import { keyOf, newSecret, push } from './push-sender.js';

const SECRET = newSecret();

/** The upstream's own shape in this test: `{ ref }`, one order each; `{ ref: 'boom' }` makes the transform throw. */
const refTransform: Transform = {
  stream: 'orders',
  name: 'ref-orders.mjs',
  fn: (payload) => {
    const { ref } = payload as { ref: string };
    if (ref === 'boom') throw new Error('no order for ref boom');
    return orderRecord(ref);
  },
};

describe('the push receiver with a transform set for the stream', () => {
  let world: TestWorld;
  const receivers: Receiver[] = [];

  async function receiverWith(transforms: ReadonlyMap<string, Transform>): Promise<Receiver> {
    const r = await startReceiver({
      redis: world.redis,
      queues: world.queues,
      kinds: programKinds,
      transforms,
      keys: world.keys,
      signing: fixedSigningKeys([keyOf(SECRET)]),
      port: 0,
      logger: createLogger({ level: 'silent' }),
    });
    receivers.push(r);
    return r;
  }

  beforeAll(async () => {
    world = await testWorld('ingest-transform', { streams: ['orders'] });
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await world?.close();
  });

  describe('when the upstream pushes its own shape', () => {
    it('syncs the records the transform makes, each job keeping the delivery id as its upstream id', async () => {
      const receiver = await receiverWith(new Map([['orders', refTransform]]));
      const a = await push(receiver.url, 'orders', [{ ref: 'TX-1' }, { ref: 'TX-2' }], { secrets: [SECRET], id: 'wh-tx-batch' });
      expect(a.status).toBe(202);
      expect(a.body).toMatchObject({ records: 2, queued: 2, invalid: 0 });
      const jobs = await world.queues.get('orders').getJobs(['waiting', 'prioritized', 'active', 'completed']);
      const upstreamIds = jobs
        .filter((j) => /^TX-/.test(String((j.data.record as { orderId?: string }).orderId)))
        .map((j) => j.data.upstreamId);
      expect(upstreamIds.sort()).toEqual(['wh-tx-batch#1', 'wh-tx-batch#2']);
      await world.idle();
      expect(syncedOnce(world.sandbox.admin.state(), ['TX-1', 'TX-2'])).toBe(true);
    });

    it('accepts a payload the transform fails on, and fails it as a bad record naming the delivery and the reason', async () => {
      const receiver = await receiverWith(new Map([['orders', refTransform]]));
      const a = await push(receiver.url, 'orders', { ref: 'boom' }, { secrets: [SECRET], id: 'wh-boom' });
      expect(a.status).toBe(202);
      expect(a.body).toMatchObject({ records: 1, invalid: 1 });
      await world.idle();
      const failed = await world.queues.get('orders').getFailed();
      const job = failed.find((j) => j.data.upstreamId === 'wh-boom');
      expect(job?.failedReason).toMatch(/wh-boom/);
      expect(job?.failedReason).toMatch(/no order for ref boom/);
      expect(JSON.parse(job!.data.upstream!)).toEqual({ ref: 'boom' });
    });
  });

  describe('when TRANSFORMS names the built-in Shopify transform', () => {
    it("queues the order it makes of an orders/fulfilled webhook's body", async () => {
      const transforms = await loadTransforms([{ stream: 'orders', spec: 'shopify-orders-fulfilled', module: false }], programKinds);
      const receiver = await receiverWith(transforms);
      const payload = JSON.parse(readFileSync(new URL('../fixtures/shopify/orders-fulfilled.json', import.meta.url), 'utf8')) as unknown;
      const a = await push(receiver.url, 'orders', payload, { secrets: [SECRET], id: 'wh-shopify-1' });
      expect(a.status).toBe(202);
      expect(a.body).toMatchObject({ records: 1, queued: 1 });
      const jobs = await world.queues.get('orders').getJobs(['waiting', 'prioritized', 'active', 'completed', 'failed']);
      const job = jobs.find((j) => j.data.upstreamId === 'wh-shopify-1');
      expect(job?.data.record).toMatchObject({ orderId: '1001', origin: 'shopify:48752903' });
      expect(JSON.parse(job!.data.upstream!)).toEqual(payload);
    });
  });
});
