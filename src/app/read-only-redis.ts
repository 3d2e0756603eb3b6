import type { RedisConnection as Redis } from '../redis/connection.js';
import { isScriptCommand } from '../redis/scripts.js';

/** The commands a dry run's previews may send: reads of keys, nothing else. */
const READS = new Set([
  'get',
  'mget',
  'exists',
  'type',
  'ttl',
  'pttl',
  'strlen',
  'hget',
  'hmget',
  'hgetall',
  'hexists',
  'hkeys',
  'hvals',
  'hlen',
  'smembers',
  'sismember',
  'scard',
  'zrange',
  'zrangebyscore',
  'zrangebylex',
  'zscore',
  'zcard',
  'zcount',
  'lrange',
  'llen',
  'lindex',
  'scan',
  'hscan',
  'sscan',
  'zscan',
]);
/** Ways around the command methods: each could write. */
const ALSO_REFUSED = new Set(['pipeline', 'multi', 'call', 'sendCommand', 'defineCommand', 'duplicate']);

/** A Redis command the dry run must not send: a bug, refused before anything reaches Redis. */
export class RedisWriteRefusedError extends Error {
  readonly code = 'WRITE_REFUSED';
  constructor(readonly command: string) {
    super(`internal error: Redis ${command} was called by a dry run preview, which may only read; nothing was sent`);
    this.name = 'RedisWriteRefusedError';
  }
}

/** `redis` for the dry run's previews: the read commands above pass, every other command is refused. */
export function readOnlyRedis(redis: Redis): Redis {
  const commands = new Set(redis.getBuiltinCommands());
  return new Proxy(redis, {
    get(target, prop, receiver) {
      if (
        typeof prop === 'string' &&
        !READS.has(prop) &&
        (ALSO_REFUSED.has(prop) || isScriptCommand(prop) || commands.has(prop) || commands.has(prop.replace(/Buffer$/, '')))
      ) {
        return () => {
          throw new RedisWriteRefusedError(prop);
        };
      }
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
