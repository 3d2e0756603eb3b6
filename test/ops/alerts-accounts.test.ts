import { Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountPrefix } from '../../config/accounts.js';
import { orderKind } from '../../jobs/orders/order-kind.js';
import { programKinds } from '../../jobs/kinds.js';
import { createLogger } from '../../src/log/logger.js';
import { checkAlerts, type AlertDeps } from '../../src/ops/alerts.js';
import { redisRefusedAlert } from '../../src/ops/redis-refused-alert.js';
import { recordRefusal } from '../../src/queue/hold/refusal-state.js';
import { openStreamQueues, type StreamQueues } from '../../src/queue/stream-queues.js';
import { redisKeys } from '../../src/redis/connection.js';
import { json, startServer, type TestServer } from '../client/http-server.js';
import { connect, deletePrefix, uniquePrefix } from '../helpers/redis.js';

/** Issue 36: with ACCOUNTS_FILE, an alert says which account it is about, in its text and in its payload. */

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

describe('alerts, with several accounts', () => {
  let redis: Redis;
  let base: string;
  const prefixes: Record<string, string> = {};
  const queues: Record<string, StreamQueues> = {};
  let server: TestServer;
  const bodies = () => server.seen.map((s) => JSON.parse(s.body) as { text: string; account?: string });
  const deps = (account: string): AlertDeps => ({
    redis,
    prefix: prefixes[account]!,
    queues: queues[account]!,
    settings: { webhookUrl: `${server.url}/hook`, lagSeconds: 3600, intervalSeconds: 2 },
    logger: createLogger({ level: 'silent' }),
    secrets: [],
    kinds: [orderKind],
    account,
  });

  beforeAll(async () => {
    redis = connect();
    base = uniquePrefix('alerts-acc');
    server = await startServer((_req, res) => json(res, 200, { ok: true }));
    for (const name of ['acme', 'beta']) {
      prefixes[name] = accountPrefix(base, name);
      queues[name] = openStreamQueues(redis, prefixes[name], programKinds);
    }
  });
  afterAll(async () => {
    await Promise.all(Object.values(queues).map((q) => q.close()));
    await server.close();
    for (const p of Object.values(prefixes)) await deletePrefix(redis, p);
    redis.disconnect();
  });

  it("names account A in the text and the payload of A's failure alert, and tells nothing of A as B's", async () => {
    expect(await checkAlerts(deps('acme'))).toEqual([]);
    expect(await checkAlerts(deps('beta'))).toEqual([]);
    await failJob(redis, prefixes.acme!, 'orders-A-1-000000000000', '[SERVICE_REFUSED] record A-1: the service said no');
    expect(await checkAlerts(deps('beta'))).toEqual([]);
    const sent = await checkAlerts(deps('acme'));
    expect(sent.map((a) => a.reason)).toEqual(['failures:orders']);
    const [body] = bodies();
    expect(body!.account).toBe('acme');
    expect(body!.text).toMatch(new RegExp(`^inventory-sync, account acme \\(\\{${base}-acme\\}\\): 1 orders job failed since`));
    expect(body!.text).not.toContain('beta');
  });

  it("names the account in a paused stream's alert", async () => {
    server.seen.length = 0;
    const reason = '[UNAUTHORIZED] POST /beta/api/order answered 401';
    await recordRefusal(redis, redisKeys(prefixes.beta!), 'orders', { threshold: 1, code: 'UNAUTHORIZED', reason, jobId: 'orders-B-1' });
    const sent = await checkAlerts(deps('beta'));
    expect(sent.map((a) => a.reason)).toEqual(['paused:orders']);
    expect(bodies()[0]).toMatchObject({ account: 'beta' });
    expect(bodies()[0]!.text).toMatch(/^inventory-sync, account beta \(.*\): the orders stream is PAUSED/);
  });

  it('names the account in the alert of a Redis that refuses writes', async () => {
    server.seen.length = 0;
    const alert = redisRefusedAlert({
      webhookUrl: `${server.url}/hook`,
      prefix: prefixes.acme!,
      afterSeconds: 1,
      secrets: [],
      logger: createLogger({ level: 'silent' }),
      account: 'acme',
    });
    alert({ refusing: true, since: Date.now() - 5000, why: 'OOM command not allowed', answered: true });
    await expect.poll(() => server.seen.length).toBe(1);
    expect(bodies()[0]).toMatchObject({ account: 'acme' });
    expect(bodies()[0]!.text).toMatch(/^inventory-sync, account acme \(.*\): Redis has refused writes for \d+ s/);
  });
});
