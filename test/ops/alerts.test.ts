import { Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStreamQueues, type StreamQueues } from '../../src/queue/stream-queues.js';
import { createLogger } from '../../src/log/logger.js';
import { checkAlerts, type AlertDeps } from '../../src/ops/alerts.js';
import { redisKeys } from '../../src/redis/connection.js';
import { json, startServer, type TestServer } from '../client/http-server.js';
import { connect, deletePrefix, uniquePrefix } from '../helpers/redis.js';
import { programKinds } from '../../jobs/kinds.js';
import { orderKind } from '../../jobs/orders/order-kind.js';

const SECRET = 'sec-4b8d2a9f61';
const HOOK_TOKEN = 'T0K3N-9f8e7d';

/** Fails one orders job through a real BullMQ worker, with this reason. */
async function failJob(redis: Redis, prefix: string, id: string, reason: string): Promise<void> {
  const queue = new Queue('orders', { connection: redis, prefix });
  await queue.add('orders', { record: { orderId: id }, source: 'feed' }, { jobId: id });
  const conn = redis.duplicate();
  const worker = new Worker('orders', () => Promise.reject(new UnrecoverableError(reason)), { connection: conn, prefix, autorun: false });
  const failed = new Promise<void>((resolve) => worker.on('failed', (job) => (job?.id === id ? resolve() : undefined)));
  void worker.run();
  await failed;
  await worker.close();
  conn.disconnect();
  await queue.close();
}

describe('alerts', () => {
  let redis: Redis;
  let prefix: string;
  let server: TestServer;
  let queues: StreamQueues;
  let deps: AlertDeps;
  let status = 200;
  const bodies = () => server.seen.map((s) => JSON.parse(s.body) as { text: string });

  beforeAll(async () => {
    redis = connect();
    prefix = uniquePrefix('alerts');
    server = await startServer((_req, res) => json(res, status, { ok: status === 200 }));
    queues = openStreamQueues(redis, prefix, programKinds);
    deps = {
      redis,
      prefix,
      queues,
      settings: { webhookUrl: `${server.url}/hook/${HOOK_TOKEN}`, lagSeconds: 60, intervalSeconds: 2 },
      logger: createLogger({ level: 'silent' }),
      secrets: [SECRET, `${server.url}/hook/${HOOK_TOKEN}`],
      kinds: [orderKind],
    };
  });
  afterAll(async () => {
    await queues.close();
    await server.close();
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  it('sends nothing on the first look: failures count from then on', async () => {
    await failJob(redis, prefix, 'orders-OLD-1-000000000000', '[BAD_RECORD] record OLD-1: an old failure');
    expect(await checkAlerts(deps)).toEqual([]);
    expect(server.seen).toHaveLength(0);
  });

  it('posts one Slack-compatible alert for new failures, with no secret in it', async () => {
    await failJob(redis, prefix, 'orders-A-1-000000000000', `[SERVICE_REFUSED] record A-1: the service said no (key ${SECRET})`);
    const sent = await checkAlerts(deps);
    expect(sent.map((a) => a.reason)).toEqual(['failures:orders']);
    expect(server.seen).toHaveLength(1);
    const [req] = server.seen;
    expect(req!.method).toBe('POST');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(Object.keys(JSON.parse(req!.body))).toEqual(['text']);
    const { text } = bodies()[0]!;
    expect(text).toMatch(
      /^inventory-sync \(test-alerts-[0-9a-f]+\): 1 orders job failed since .*Latest: orders-A-1-000000000000: \[SERVICE_REFUSED\] record A-1: the service said no \(key \[REDACTED\]\)/,
    );
    expect(text).toContain('inventory-sync jobs list --state failed --stream orders');
    expect(req!.body).not.toContain(SECRET);
    expect(req!.body).not.toContain(HOOK_TOKEN);
  });

  it('sends the same reason once per interval, then tells of every failure since', async () => {
    await failJob(redis, prefix, 'orders-A-2-000000000000', '[BAD_RECORD] record A-2: lines: must have at least one line');
    expect(await checkAlerts(deps)).toEqual([]);
    expect(server.seen).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 2100));
    const sent = await checkAlerts(deps);
    expect(sent.map((a) => a.reason)).toEqual(['failures:orders']);
    expect(bodies()[1]!.text).toContain('1 orders job failed since');
    expect(bodies()[1]!.text).toContain('orders-A-2-000000000000');
    expect(await checkAlerts(deps)).toEqual([]);
  }, 10_000);

  it('alerts when the feed falls behind the limit, once per interval, apart from failures', async () => {
    const tenMinutesAgo = new Date(Date.now() - 600_000).toISOString();
    await redis.hset(redisKeys(prefix).feedState('orders'), {
      caughtUpAt: tenMinutesAgo,
      lastPollAt: new Date().toISOString(),
      lastError: 'feed answered 503',
    });
    const before = server.seen.length;
    expect((await checkAlerts(deps)).map((a) => a.reason)).toEqual(['lag:orders']);
    expect(bodies()[before]!.text).toMatch(/the orders feed is 10 min behind \(limit 60 s\)\. Last pull failed: feed answered 503/);
    expect(await checkAlerts(deps)).toEqual([]);
    expect(server.seen).toHaveLength(before + 1);
  });

  it('tries again at the next look when the webhook refuses', async () => {
    await new Promise((r) => setTimeout(r, 2100));
    status = 500;
    expect(await checkAlerts(deps)).toEqual([]);
    status = 200;
    expect((await checkAlerts(deps)).map((a) => a.reason)).toEqual(['lag:orders']);
  }, 10_000);
});
