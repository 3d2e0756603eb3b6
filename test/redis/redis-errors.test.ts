import { ReplyError } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/client/budget/budget.js';
import { TransientError } from '../../src/client/answers/errors.js';
import { ServiceClient } from '../../src/client/service-client.js';
import { describeFailure, ExitCode } from '../../src/cli/exit-codes.js';
import { probeService } from '../../src/app/probe-service.js';
import { classifyFailure } from '../../src/queue/failure.js';
import { findRedisFailure } from '../../src/redis/errors.js';
import { redisKeys } from '../../src/redis/connection.js';
import { connect, deletePrefix, uniquePrefix } from '../helpers/redis.js';

const budgets = { postPerMinute: 600, getPerMinute: 600, collectionPerHour: 600, headroom: 1 };

describe('Redis failures', () => {
  describe("when a job's Redis command is refused", () => {
    const prefix = uniquePrefix('redis-errors');
    const redis = connect();
    afterAll(async () => {
      await deletePrefix(redis, prefix);
      redis.disconnect();
    });

    it('fails the attempt as REDIS, retried, with a hint about Redis', async () => {
      await redis.set(`${prefix}:plain`, 'x');
      const err = await redis.hget(`${prefix}:plain`, 'field').catch((e: unknown) => e);
      const f = classifyFailure(err);
      expect(f).toMatchObject({ action: 'retry', code: 'REDIS', retryable: true });
      expect(f.message).toMatch(/^WRONGTYPE/);
      expect(f.hint).toContain('Redis');
    });
  });

  describe('when the request budget cannot be read because Redis is gone', () => {
    let client: ServiceClient;
    beforeAll(() => {
      const redis = connect();
      redis.disconnect();
      const budget = new RequestBudget({ redis, keys: redisKeys(uniquePrefix('gone')), budgets });
      client = new ServiceClient({
        baseUrl: 'http://127.0.0.1:1',
        account: 'a',
        apiKey: 'k',
        apiSecret: 's',
        budget,
        readRetries: 1,
        retryMinDelayMs: 1,
      });
    });
    afterAll(() => client.close());

    it('blames Redis, not the service: exit 3 and a Redis hint, from the probe of a run as from a job', async () => {
      const err = await probeService(client, 'http://127.0.0.1:1').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TransientError);
      const { code, lines } = describeFailure(err);
      expect(code).toBe(ExitCode.unreachable);
      expect(lines).toEqual(['Redis failed: Connection is closed.', expect.stringContaining('Redis stopped answering')]);
      expect(lines.join('\n')).not.toContain('the service');
      expect(classifyFailure(err)).toMatchObject({ code: 'REDIS', outcome: 'not-applied' });
    });
  });

  describe('when a cluster answers MOVED, CROSSSLOT or CLUSTERDOWN under a service error', () => {
    const under = (reply: string) =>
      new TransientError('GET /x was not sent: the request budget could not be read from Redis', {
        method: 'GET',
        path: '/x',
        cause: new ReplyError(reply),
      });

    it('says what to set or check for each', () => {
      expect(describeFailure(under('MOVED 3999 127.0.0.1:7001'))).toEqual({
        code: ExitCode.unreachable,
        lines: ['Redis failed: MOVED 3999 127.0.0.1:7001', expect.stringContaining('set REDIS_CLUSTER_NODES=host:port')],
      });
      expect(findRedisFailure(under("CROSSSLOT Keys in request don't hash to the same slot"))?.hint).toContain('{hash tag}');
      expect(findRedisFailure(under('CLUSTERDOWN The cluster is down'))?.hint).toContain('redis-cli --cluster check');
    });
  });

  describe('when the service itself cannot be reached', () => {
    it('is not taken for a Redis failure', () => {
      const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
      const err = new TransientError('GET /x could not reach the service (ECONNREFUSED)', { method: 'GET', path: '/x', cause: refused });
      expect(findRedisFailure(err)).toBeUndefined();
      expect(classifyFailure(err).code).toBe('TRANSIENT');
    });
  });
});
