// Loaded by every test file (test/setup/run-redis.ts) and by the processes tests start (defaultRedisGuard() of
// test/helpers/redis.ts) when the run's Redis is not at the default address: from then on a connection to 127.0.0.1:6379 throws at once,
// naming what to do. A configuration that fell back to the default would otherwise reach another Redis than the
// test's (whatever answers on this machine's 6379) or none, and time out far from its cause.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
// The copy of ioredis every part of the program and BullMQ load (one in node_modules).
const { Redis } = require('ioredis');

const DEFAULT_REDIS_PORT = 6379;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

const connect = Redis.prototype.connect;
if (!connect.defaultRedisGuard) {
  Redis.prototype.connect = function guardedConnect(...args) {
    const o = this.options;
    const atDefault = !o.sentinels && !o.path && LOOPBACK.has(o.host) && Number(o.port) === DEFAULT_REDIS_PORT;
    if (atDefault)
      throw new Error(
        `a connection to the default Redis address ${o.host}:${DEFAULT_REDIS_PORT}, but this test run's Redis is elsewhere: ` +
          "a configuration fell back to the default. Build it on the run's Redis: redisTarget(), redisUrl() or redisEnv() " +
          "(test/helpers/redis.ts), e.g. sandboxConfig(sandbox, { redis: redisTarget() }) or REDIS_URL in a child's env.",
      );
    return connect.apply(this, args);
  };
  Redis.prototype.connect.defaultRedisGuard = true;
}
