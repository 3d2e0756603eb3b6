import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { orderKind } from '../../jobs/orders/order-kind.js';
import { programKinds } from '../../jobs/kinds.js';
import { noteFound } from '../../src/feed/store-found.js';
import { createLogger } from '../../src/log/logger.js';
import { checkAlerts, type AlertDeps } from '../../src/ops/alerts.js';
import { openStreamQueues, type StreamQueues } from '../../src/queue/stream-queues.js';
import { redisKeys } from '../../src/redis/connection.js';
import { json, startServer, type TestServer } from '../client/http-server.js';
import { connect, deletePrefix, uniquePrefix } from '../helpers/redis.js';

describe('alerts about a store source', () => {
  let redis: Redis;
  let prefix: string;
  let server: TestServer;
  let queues: StreamQueues;
  let deps: AlertDeps;

  beforeEach(async () => {
    redis = connect();
    prefix = uniquePrefix('alerts-missed');
    server = await startServer((_req, res) => json(res, 200, { ok: true }));
    queues = openStreamQueues(redis, prefix, programKinds);
    deps = {
      redis,
      prefix,
      queues,
      settings: { webhookUrl: `${server.url}/hook`, lagSeconds: 3600, intervalSeconds: 60 },
      logger: createLogger({ level: 'silent' }),
      secrets: [],
      kinds: [orderKind],
    };
  });
  afterEach(async () => {
    await queues.close();
    await server.close();
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  const found = (n: number, at = Date.now()) =>
    noteFound(
      redis,
      redisKeys(prefix),
      'orders',
      Array.from({ length: n }, (_, i) => `${1000 + i}@2026-11-30T18:00:0${i % 10}Z`),
      at,
    );

  it('stays quiet while the pull finds a few changes an hour that no webhook brought', async () => {
    await found(5);
    expect((await checkAlerts(deps)).map((a) => a.reason)).not.toContain('missed-webhooks:orders');
  });

  it('alerts when it finds more than a few: the subscription may be gone', async () => {
    await found(6);
    const sent = await checkAlerts(deps);
    const alert = sent.find((a) => a.reason === 'missed-webhooks:orders');
    expect(alert?.text).toMatch(/found 6 orders changes in the last hour that no webhook brought/);
    expect(alert?.text).toContain('--register-webhooks');
    expect(server.seen).toHaveLength(1);
  });

  it('counts only the last hour', async () => {
    await found(20, Date.now() - 2 * 3600_000);
    expect((await checkAlerts(deps)).map((a) => a.reason)).not.toContain('missed-webhooks:orders');
  });
});
