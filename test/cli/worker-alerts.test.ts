import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisKeys } from '../../src/redis/connection.js';
import { json, startServer, type TestServer } from '../client/http-server.js';
import { SECRETS, startStack, type Stack } from './stack.js';
import { eventually, startWorkerProcess } from './worker-process.js';

const HOOK_TOKEN = 'hook-tok-5e6f7a8b';

describe('worker alerts', () => {
  let stack: Stack;
  let hook: TestServer;
  beforeAll(async () => {
    stack = await startStack({}, 'worker-alerts');
    hook = await startServer((_req, res) => json(res, 200, { ok: true }));
  });
  afterAll(async () => {
    await hook?.close();
    await stack?.close();
  });

  describe('when a stream has fallen behind and ALERT_WEBHOOK_URL is set', () => {
    it('POSTs one alert from the worker process, with no secret in it', async () => {
      // The nightly stock-count pull failed an hour ago and nothing has caught up since.
      const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
      await stack.redis.hset(redisKeys(stack.prefix).feedState('stock-counts'), {
        caughtUpAt: hourAgo,
        lastPollAt: hourAgo,
        lastError: 'the feed answered 503',
      });
      const worker = startWorkerProcess({
        ...stack.env,
        LOG_LEVEL: 'info',
        ALERT_WEBHOOK_URL: `${hook.url}/services/${HOOK_TOKEN}`,
        ALERT_LAG_SECONDS: '900',
      });
      try {
        await eventually(async () => hook.seen.length > 0, 30_000, 'an alert');
        const [req] = hook.seen;
        expect(req!.url).toBe(`/services/${HOOK_TOKEN}`);
        expect(JSON.parse(req!.body)).toEqual({
          text: `inventory-sync (${stack.prefix}): the stock-counts feed is 60 min behind (limit 15 min). Last pull failed: the feed answered 503. See: inventory-sync status`,
        });
        for (const secret of [SECRETS.key, SECRETS.secret, SECRETS.token, HOOK_TOKEN]) expect(req!.body).not.toContain(secret);
        // The worker says it sent one, without the webhook's URL.
        await eventually(async () => worker.stdoutLines.some((l) => l.includes('"alert sent"')), 10_000, 'the log line');
        expect(worker.stdoutLines.join('\n')).not.toContain(HOOK_TOKEN);
      } finally {
        expect((await worker.stop()).code).toBe(0);
      }
      expect(hook.seen).toHaveLength(1);
    }, 60_000);
  });
});
