import type { RedisConnection as Redis } from './connection.js';
import { LockLostError, type FencingLock } from './redis-lock.js';
import { redisScript, runScript } from './scripts.js';

/**
 * Writes that land only while their locks are still the holder's, as Redis sees it: one script compares each lock's
 * value with the holder's token and runs the writes only when all match, as one. The holder's own clock (assertHeld)
 * cannot tell a write that waits in a connection's queue (Redis restarting, a reconnection's back-off) or in a process
 * paused after the check; Redis, running the write, can. KEYS: the locks, then the written keys; ARGV: the number of
 * locks, their tokens, the writes as JSON `[[command, key's index in KEYS, ...arguments]]`. Answers 1, or the key of a
 * lock no longer the holder's (nothing written).
 */
const FENCED_WRITE = redisScript(
  'fencedWrite',
  `local locks = tonumber(ARGV[1])
for i = 1, locks do
  if redis.call('GET', KEYS[i]) ~= ARGV[i + 1] then return KEYS[i] end
end
for _, op in ipairs(cjson.decode(ARGV[locks + 2])) do
  redis.call(op[1], KEYS[op[2]], unpack(op, 3))
end
return 1`,
);

/** Field-value pairs of one HSET in the script (Lua's unpack has a bounded stack). */
const HSET_PAIRS = 1000;

/** A set of writes under locks (FENCED_WRITE): built a command at a time, sent as one script by `exec`. */
export class FencedWrite {
  private readonly keys: string[] = [];
  private readonly index = new Map<string, number>();
  private readonly ops: Array<Array<string | number>> = [];

  constructor(private readonly lock: FencingLock) {
    for (const [key] of lock.tokens) this.keyIndex(key);
  }

  private keyIndex(key: string): number {
    let i = this.index.get(key);
    if (i === undefined) {
      this.keys.push(key);
      i = this.keys.length;
      this.index.set(key, i);
    }
    return i;
  }

  /** Adds one command on one key (DEL, HDEL, PEXPIRE, SADD, SREM...). */
  call(command: string, key: string, ...args: Array<string | number>): this {
    this.ops.push([command, this.keyIndex(key), ...args.map(String)]);
    return this;
  }

  /** A variadic command over many members (HDEL's fields, SREM's members), in commands of at most 2 * HSET_PAIRS. */
  each(command: string, key: string, members: string[]): this {
    for (let i = 0; i < members.length; i += 2 * HSET_PAIRS) this.call(command, key, ...members.slice(i, i + 2 * HSET_PAIRS));
    return this;
  }

  /** Sets a hash's fields (in HSETs of at most HSET_PAIRS fields). */
  hset(key: string, fields: Record<string, string>): this {
    const entries = Object.entries(fields);
    for (let i = 0; i < entries.length; i += HSET_PAIRS) this.call('HSET', key, ...entries.slice(i, i + HSET_PAIRS).flat());
    return this;
  }

  /** Runs the writes while every lock is still the holder's; LockLostError (nothing written) once one is not. */
  async exec(redis: Redis): Promise<void> {
    this.lock.assertHeld();
    if (!this.ops.length) return;
    const tokens = this.lock.tokens.map(([, token]) => token);
    const r = await runScript(redis, FENCED_WRITE, [this.keys.length, ...this.keys, tokens.length, ...tokens, JSON.stringify(this.ops)]);
    if (r !== 1) throw new LockLostError(String(r));
  }
}
