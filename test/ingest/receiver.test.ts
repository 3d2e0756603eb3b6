import { request } from 'node:http';
import type { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { programKinds } from '../../jobs/kinds.js';
import { fixedSigningKeys } from '../../src/ingest/signing-keys.js';
import { startReceiver, type Receiver, type ReceiverOptions } from '../../src/ingest/receiver.js';
import { createLogger } from '../../src/log/logger.js';
import { keyOffenders } from '../helpers/key-offenders.js';
import { captureOut } from '../helpers/out-stream.js';
import { orderRecord, syncedOnce } from '../helpers/order-records.js';
import { testWorld, type TestWorld } from '../helpers/test-world.js';
import { keyOf, newSecret, push, signatureOf } from './push-sender.js';

const SECRET = newSecret();

describe('the push receiver', () => {
  let world: TestWorld;
  let receiver: Receiver;
  const receivers: Receiver[] = [];

  /** Another receiver on the same world, with other settings. */
  async function another(o: Partial<ReceiverOptions> = {}): Promise<Receiver> {
    const r = await startReceiver({
      redis: world.redis,
      queues: world.queues,
      kinds: programKinds,
      keys: world.keys,
      signing: fixedSigningKeys([keyOf(SECRET)]),
      port: 0,
      logger: createLogger({ level: 'silent' }),
      ...o,
    });
    receivers.push(r);
    return r;
  }

  const jobCount = async () => {
    const c = await world.queues.get('orders').getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized');
    return Object.values(c).reduce((a, b) => a + b, 0);
  };

  beforeAll(async () => {
    world = await testWorld('ingest', { streams: ['orders'] });
    receiver = await another();
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await world?.close();
  });

  describe('when deliveries are signed', () => {
    it('syncs each pushed order exactly once, a repeat of a record included', async () => {
      const ids = ['PUSH-1', 'PUSH-2', 'PUSH-3'];
      for (const id of ids) {
        const a = await push(receiver.url, 'orders', orderRecord(id), { secrets: [SECRET] });
        expect(a.status).toBe(202);
        expect(a.body).toMatchObject({ accepted: true, records: 1, queued: 1, duplicates: 0, invalid: 0 });
      }
      // The same record in another delivery (a new webhook-id): its job exists, nothing new.
      const again = await push(receiver.url, 'orders', orderRecord('PUSH-2'), { secrets: [SECRET] });
      expect(again.body).toMatchObject({ accepted: true, queued: 0, duplicates: 1 });
      await world.idle();
      expect(syncedOnce(world.sandbox.admin.state(), ids)).toBe(true);
    });

    it('queues nothing new for a webhook-id it has seen with the same body, and says it is a duplicate', async () => {
      const before = await jobCount();
      const first = await push(receiver.url, 'orders', orderRecord('PUSH-DUP'), { secrets: [SECRET], id: 'msg_dup_1' });
      expect(first.status).toBe(202);
      // A retry of the same delivery is not stored again.
      const retry = await push(receiver.url, 'orders', orderRecord('PUSH-DUP'), { secrets: [SECRET], id: 'msg_dup_1' });
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual({ accepted: true, duplicate: true, deliveryId: 'msg_dup_1' });
      expect(await jobCount()).toBe(before + 1);
    });

    it('stores a webhook-id re-used with another body as a delivery of its own, logged once and counted', async () => {
      const registry = new Registry();
      const log = captureOut(false);
      const own = await another({ registry, logger: createLogger({ level: 'info', destination: log.stream }) });
      const before = await jobCount();
      const send = (id: string) => push(own.url, 'orders', orderRecord(id), { secrets: [SECRET], id: 'msg_reused_1' });
      expect((await send('PUSH-REUSED-A')).status).toBe(202);
      const other = await send('PUSH-REUSED-B');
      expect(other.status).toBe(202);
      expect(other.body).toMatchObject({ accepted: true, deliveryId: 'msg_reused_1', records: 1, queued: 1 });
      const third = await send('PUSH-REUSED-C');
      expect(third.status).toBe(202);
      // Each body once: the second body again is a retry of its own delivery.
      expect((await send('PUSH-REUSED-B')).status).toBe(200);
      expect(await jobCount()).toBe(before + 3);
      const metrics = await registry.metrics();
      expect(metrics).toContain('isync_ingest_reused_ids_total{stream="orders"} 2');
      const lines = log.lines().map((l) => JSON.parse(l) as { msg: string; deliveryId?: string });
      const reused = lines.filter((l) => l.msg.startsWith('a webhook-id came again with another body'));
      expect(reused).toHaveLength(1);
      expect(reused[0]!.deliveryId).toBe('msg_reused_1');
      await world.idle();
      expect(syncedOnce(world.sandbox.admin.state(), ['PUSH-REUSED-A', 'PUSH-REUSED-B', 'PUSH-REUSED-C'])).toBe(true);
    });

    it('queues every record of an array body (a batch push)', async () => {
      const batch = ['BATCH-1', 'BATCH-2', 'BATCH-3'].map((id) => orderRecord(id));
      const a = await push(receiver.url, 'orders', batch, { secrets: [SECRET] });
      expect(a.status).toBe(202);
      expect(a.body).toMatchObject({ records: 3, queued: 3 });
      await world.idle();
      expect(syncedOnce(world.sandbox.admin.state(), ['BATCH-1', 'BATCH-2', 'BATCH-3'])).toBe(true);
    });

    it('accepts JSON that is not a valid record, whose job fails as a bad record naming it, the field and why', async () => {
      const a = await push(receiver.url, 'orders', { orderId: 'PUSH-BAD', origin: 'Main Warehouse', lines: 'none' }, { secrets: [SECRET] });
      expect(a.status).toBe(202);
      expect(a.body).toMatchObject({ records: 1, queued: 1, invalid: 1 });
      await world.idle();
      const failed = await world.queues.get('orders').getFailed();
      const job = failed.find((j) => (j.data.record as { orderId?: string }).orderId === 'PUSH-BAD');
      expect(job?.data.source).toBe('push');
      expect(job?.failedReason).toMatch(/BAD_RECORD.*PUSH-BAD.*lines/);
    });
  });

  describe('when deliveries were stored', () => {
    it('leaves no key of the prefix without its documented bound (a delivery id is kept a day)', async () => {
      const seen = await world.redis.keys(`${world.prefix}:ingest-seen:*`);
      expect(seen.length).toBeGreaterThan(0);
      expect(await keyOffenders(world.redis as Redis, world.prefix)).toEqual([]);
    });
  });

  describe('when a delivery is not signed right', () => {
    it('answers 401 to forged, unsigned and stale deliveries, and queues nothing', async () => {
      const seen = async () => (await world.redis.keys(`${world.prefix}:ingest-seen:*`)).length;
      const [before, seenBefore] = [await jobCount(), await seen()];
      const now = Math.floor(Date.now() / 1000);
      const record = orderRecord('PUSH-FORGED');
      const answers = [
        await push(receiver.url, 'orders', record, { secrets: [newSecret()] }),
        await push(receiver.url, 'orders', record),
        await push(receiver.url, 'orders', record, { secrets: [SECRET], timestamp: now - 6 * 60 }),
        await push(receiver.url, 'orders', record, { secrets: [SECRET], timestamp: now + 6 * 60 }),
        // Signed, then the body changed on the way.
        await push(receiver.url, 'orders', record, { secrets: [SECRET], tampered: JSON.stringify(orderRecord('PUSH-FORGED-2')) }),
        await push(receiver.url, 'orders', record, { secrets: [SECRET], headers: { 'webhook-signature': 'v1,AAAA' } }),
      ];
      for (const a of answers) expect(a.status).toBe(401);
      expect(answers.map((a) => a.body.reason)).toEqual([
        'webhook-signature matches no secret',
        expect.stringContaining('unsigned'),
        expect.stringMatching(/^stale: webhook-timestamp is 36\d s from now/),
        expect.stringMatching(/^stale/),
        'webhook-signature matches no secret',
        'webhook-signature matches no secret',
      ]);
      expect(await jobCount()).toBe(before);
      expect(await seen()).toBe(seenBefore);
    });
  });

  describe('when the request is wrong', () => {
    it('answers 404 for an unknown stream, 405 for another method, 400 for a body that is not JSON', async () => {
      expect((await push(receiver.url, 'invoices', {}, { secrets: [SECRET] })).status).toBe(404);
      const get = await push(receiver.url, 'orders', undefined, { method: 'GET' });
      expect(get.status).toBe(405);
      expect(get.headers.get('allow')).toBe('POST');
      const notJson = await push(receiver.url, 'orders', undefined, { secrets: [SECRET], raw: '{"orderId": ' });
      expect(notJson.status).toBe(400);
      expect(notJson.body.error).toMatch(/^the body is not JSON/);
      const health = await fetch(`${receiver.url}/healthz`);
      expect(health.status).toBe(200);
    });

    it('answers 413 to a body past the cap, without reading it all', async () => {
      const small = await another({ limits: { maxBodyBytes: 1024 } });
      const big = [
        orderRecord(
          'BIG',
          Array.from({ length: 100 }, () => ({ productId: 'MUG-BLUE', quantity: 1, unitPrice: 1 })),
        ),
      ];
      const a = await push(small.url, 'orders', big, { secrets: [SECRET] });
      expect(a.status).toBe(413);
      expect(a.body.error).toContain('INGEST_MAX_BODY_BYTES');
    });

    it('answers 429 with Retry-After to a sender past its rate', async () => {
      const slow = await another({ limits: { ratePerSecond: 2 } });
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 4; i++) {
        const a = await push(slow.url, 'orders', orderRecord('RATE-1'), { secrets: [SECRET] });
        statuses.push(a.status);
        if (a.status === 429) retryAfter = a.headers.get('retry-after');
      }
      expect(statuses.slice(0, 2)).toEqual([202, 202]);
      expect(statuses.slice(2)).toContain(429);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    });

    it('answers 503 with Retry-After while the stream holds its backlog cap', async () => {
      const capped = await another({ limits: { maxBacklog: 1, backlogCacheMs: 0 } });
      await world.pool!.workers.get('orders')!.pause();
      try {
        expect((await push(capped.url, 'orders', orderRecord('CAP-1'), { secrets: [SECRET] })).status).toBe(202);
        const a = await push(capped.url, 'orders', orderRecord('CAP-2'), { secrets: [SECRET] });
        expect(a.status).toBe(503);
        expect(a.headers.get('retry-after')).toBe('5');
        expect(a.body.reason).toContain('INGEST_MAX_BACKLOG');
      } finally {
        await world.pool!.workers.get('orders')!.resume();
      }
    });
  });

  describe('when it is closed while a push is in flight', () => {
    it('stores and answers that push, takes no new connection, then resolves', async () => {
      const closing = await another();
      const raw = JSON.stringify(orderRecord('CLOSE-1'));
      const ts = Math.floor(Date.now() / 1000);
      const answered = new Promise<number>((resolve, reject) => {
        const req = request(`${closing.url}/ingest/orders`, {
          method: 'POST',
          headers: {
            'webhook-id': 'msg_close_1',
            'webhook-timestamp': String(ts),
            'webhook-signature': signatureOf([SECRET], 'msg_close_1', ts, raw),
          },
        });
        req.on('response', (res) => resolve(res.statusCode ?? 0));
        req.on('error', reject);
        // Half the body now, the rest once the close has begun.
        req.write(raw.slice(0, 20));
        setTimeout(() => req.end(raw.slice(20)), 300);
      });
      await new Promise((r) => setTimeout(r, 100));
      const closed = closing.close();
      await expect(fetch(`${closing.url}/healthz`)).rejects.toThrow();
      expect(await answered).toBe(202);
      await closed;
      const jobs = await world.queues.get('orders').getJobs(['waiting', 'active', 'completed']);
      expect(jobs.some((j) => (j.data.record as { orderId?: string }).orderId === 'CLOSE-1')).toBe(true);
    });
  });

  describe('when the secret is rotated', () => {
    it('takes deliveries signed with either of two secrets, and with both at once', async () => {
      const next = newSecret();
      const rotating = await another({ signing: fixedSigningKeys([keyOf(SECRET), keyOf(next)]) });
      expect((await push(rotating.url, 'orders', orderRecord('ROT-1'), { secrets: [SECRET] })).status).toBe(202);
      expect((await push(rotating.url, 'orders', orderRecord('ROT-2'), { secrets: [next] })).status).toBe(202);
      expect((await push(rotating.url, 'orders', orderRecord('ROT-3'), { secrets: [newSecret(), next] })).status).toBe(202);
      expect((await push(rotating.url, 'orders', orderRecord('ROT-4'), { secrets: [newSecret()] })).status).toBe(401);
    });
  });
});
