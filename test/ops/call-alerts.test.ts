import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStreamQueues, type StreamQueues } from '../../src/queue/stream-queues.js';
import { createLogger } from '../../src/log/logger.js';
import { checkAlerts, type AlertDeps } from '../../src/ops/alerts.js';
import { redisKeys } from '../../src/redis/connection.js';
import { runScript } from '../../src/redis/scripts.js';
import { CALL_ANSWERED, CALL_FAILED } from '../../src/queue/hold/call-hold-scripts.js';
import { noteHeldJob } from '../../src/queue/hold/call-held-jobs.js';
import { json, startServer, type TestServer } from '../client/http-server.js';
import { connect, deletePrefix, uniquePrefix } from '../helpers/redis.js';
import { programKinds } from '../../jobs/kinds.js';
import { orderKind } from '../../jobs/orders/order-kind.js';

/** Issue 45: a call of the service held long is told once, with the jobs that wait at it; its end once too. */
describe('alerts, when one call of the service is held', () => {
  let redis: Redis;
  let prefix: string;
  let server: TestServer;
  let queues: StreamQueues;
  let deps: AlertDeps;
  const texts = () => server.seen.map((s) => (JSON.parse(s.body) as { text: string }).text);

  beforeAll(async () => {
    redis = connect();
    prefix = uniquePrefix('call-alerts');
    server = await startServer((_req, res) => json(res, 200, { ok: true }));
    queues = openStreamQueues(redis, prefix, programKinds);
    deps = {
      redis,
      prefix,
      queues,
      settings: { webhookUrl: `${server.url}/hook`, lagSeconds: 3600, intervalSeconds: 2, outageSeconds: 60 },
      logger: createLogger({ level: 'silent' }),
      secrets: [],
      kinds: [orderKind],
    };
  });
  afterAll(async () => {
    await queues.close();
    await server.close();
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  it('tells it once after OUTAGE_ALERT_SECONDS, not before, and tells its end once', async () => {
    const keys = redisKeys(prefix);
    const since = Date.now() - 90_000;
    for (let i = 0; i < 3; i++)
      await runScript(redis, CALL_FAILED, [1, keys.callHolds(), 'variance', since, 3, '[TRANSIENT] 503', 'TRANSIENT', 2000, 30_000, '']);
    await noteHeldJob(redis, keys, 'variance', 'orders', 'orders-A-1');
    await checkAlerts(deps, since + 30_000);
    expect(texts()).toEqual([]);
    await checkAlerts(deps);
    await checkAlerts(deps);
    expect(texts()).toHaveLength(1);
    expect(texts()[0]).toMatch(
      /: variance of the service has been HELD since .* \(90 s\): \[TRANSIENT\] 503\. Only the jobs whose next step is variance wait \(1 now/,
    );
    expect(texts()[0]).toContain('every other call and stream goes on');

    await runScript(redis, CALL_ANSWERED, [1, keys.callHolds(), 'variance', Date.now(), 'answered']);
    await checkAlerts(deps);
    await checkAlerts(deps);
    expect(texts()).toHaveLength(2);
    expect(texts()[1]).toMatch(/: variance of the service works again since .*, after \d+ s held; .* Nothing to do\.$/);
  });
});
