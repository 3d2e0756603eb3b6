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
/** Ways around the command methods: each could write. A pipeline is made read-only instead (readPipeline). */
const ALSO_REFUSED = new Set(['multi', 'call', 'sendCommand', 'defineCommand', 'duplicate']);
/** Marks a connection readOnlyRedis made, so that wrapping it again answers it as it is. */
const READ_ONLY = Symbol('readOnlyRedis');

/** A Redis command the dry run must not send: a bug, refused before anything reaches Redis. */
export class RedisWriteRefusedError extends Error {
  readonly code = 'WRITE_REFUSED';
  constructor(readonly command: string) {
    super(`internal error: Redis ${command} was called by a dry run preview, which may only read; nothing was sent`);
    this.name = 'RedisWriteRefusedError';
  }
}

/** Whether `prop` is a command (or a way around one) that the read list does not have. */
function refused(prop: string | symbol, commands: ReadonlySet<string>, also: ReadonlySet<string> = new Set()): prop is string {
  return (
    typeof prop === 'string' &&
    !READS.has(prop) &&
    !also.has(prop) &&
    (ALSO_REFUSED.has(prop) || isScriptCommand(prop) || commands.has(prop) || commands.has(prop.replace(/Buffer$/, '')))
  );
}

/** `target` with every command `refused` names throwing RedisWriteRefusedError; `pipeline` gives a read-only pipeline. */
function guarded<T extends object>(
  target: T,
  commands: ReadonlySet<string>,
  pipeline: (args: unknown[]) => unknown,
  also?: ReadonlySet<string>,
): T {
  return new Proxy(target, {
    get(t, prop, receiver) {
      if (prop === READ_ONLY) return true;
      if (prop === 'pipeline') return (...args: unknown[]) => pipeline(args);
      if (refused(prop, commands, also))
        return () => {
          throw new RedisWriteRefusedError(prop);
        };
      const value: unknown = Reflect.get(t, prop, receiver);
      if (typeof value !== 'function') return value;
      // Called on the target itself; a chained call (a pipeline's) goes on through the guard.
      return (...args: unknown[]) => {
        const out: unknown = (value as (...a: unknown[]) => unknown).apply(t, args);
        return out === t ? receiver : out;
      };
    },
  });
}

/** `redis` for the dry run: the read commands above pass (also in a pipeline), every other command is refused. */
export function readOnlyRedis(redis: Redis): Redis {
  if ((redis as unknown as Record<symbol, unknown>)[READ_ONLY]) return redis;
  const commands = new Set(redis.getBuiltinCommands());
  const readPipeline = (args: unknown[]): unknown => {
    const [given] = args as [Array<[string, ...unknown[]]> | undefined];
    for (const [command] of given ?? []) if (refused(command, commands)) throw new RedisWriteRefusedError(command);
    const pipe = redis.pipeline(given);
    const nested = () => {
      throw new RedisWriteRefusedError('pipeline');
    };
    // A pipeline of reads is sent as one: its exec passes.
    return guarded(pipe, commands, nested, new Set(['exec']));
  };
  return guarded(redis, commands, readPipeline);
}
