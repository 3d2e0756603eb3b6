import { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log/logger.js';
import { startRedisServer, type RedisServer } from '../../../src/redis/embedded-server.js';
import { watchRedisWrites } from '../../../src/queue/hold/write-probe.js';
import { createRedis } from '../../../src/redis/connection.js';
import { freePort } from '../../kit/test-port.js';

/** Private redis-servers: a primary, and a replica of it (which answers writes READONLY). */
describe('watching whether Redis takes writes', () => {
  let primary: RedisServer;
  let replica: RedisServer;
  let toPrimary: Redis;
  let toReplica: Redis;
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = createLogger({
    destination: new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as { level: number; msg: string });
        cb();
      },
    }),
  });
  beforeAll(async () => {
    primary = await startRedisServer();
    replica = await startRedisServer({ args: ['--replicaof', '127.0.0.1', String(primary.port)] });
    toPrimary = createRedis(primary.url);
    // The replica's connection must not reconnect on READONLY (the program's does, to follow a failover): plain.
    toReplica = createRedis(replica.url, { reconnectOnError: () => false });
  }, 30_000);
  afterAll(async () => {
    toPrimary?.disconnect();
    toReplica?.disconnect();
    await replica?.stop();
    await primary?.stop();
  });

  it('finds a primary takes them', async () => {
    const watch = watchRedisWrites({ redis: toPrimary, key: 'w:write-probe', logger, everyMs: 60_000 });
    try {
      expect(await watch.probe()).toMatchObject({ refusing: false });
      expect(await toPrimary.pttl('w:write-probe')).toBeGreaterThan(0);
    } finally {
      watch.stop();
    }
  });

  it('finds a Redis that is away does not answer them', async () => {
    const away = createRedis(`redis://127.0.0.1:${await freePort()}`);
    away.on('error', () => undefined);
    const watch = watchRedisWrites({ redis: away, key: 'w:write-probe', logger, everyMs: 60_000, timeoutMs: 300 });
    try {
      expect(await watch.probe()).toMatchObject({ refusing: true, answered: false, why: 'no answer within 300 ms' });
      expect(lines.at(-1)?.msg).toBe(
        'Redis does not answer writes: no answer within 300 ms; jobs and pulls wait (nothing is lost) and go on by themselves once it takes writes again',
      );
    } finally {
      watch.stop();
      away.disconnect();
    }
  });

  it('finds a replica refuses them (READONLY), says why and what to do once, and the end once', async () => {
    const watch = watchRedisWrites({ redis: toReplica, key: 'w:write-probe', logger, everyMs: 60_000 });
    try {
      const from = lines.length;
      const first = await watch.probe();
      expect(first).toMatchObject({
        refusing: true,
        answered: true,
        why: expect.stringMatching(/^READONLY/),
        hint: expect.stringContaining('primary'),
      });
      await watch.probe();
      expect((await watch.probe()).since).toBe(first.since);
      const said = lines.slice(from).map((l) => l.msg);
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(/^Redis refuses writes: READONLY .*point REDIS_URL .* at the primary/);
      // Promoted: takes writes again.
      await toReplica.call('REPLICAOF', 'NO', 'ONE');
      expect(await watch.probe()).toMatchObject({ refusing: false });
      expect(lines.slice(from).map((l) => l.msg)).toEqual([said[0], 'Redis takes writes again; jobs and pulls go on']);
    } finally {
      watch.stop();
    }
  });
});
