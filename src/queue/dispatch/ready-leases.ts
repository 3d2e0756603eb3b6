import { redisScript, runScript } from '../../redis/scripts.js';
import { shardKeys, shardOf, type ReadyContext } from './ready-keys.js';

// The ready set's leases (ready-set.ts): renewed by the process that holds them, and given back to the ready set when
// they ended with no release (their process died mid-turn).

// KEYS: lease, owner. ARGV: until, owner, accounts. Extends the leases the owner holds; answers the accounts whose lease
// another process holds now, or that no process holds (this one stalled past its lease, and another claimed it, or it
// was given back to the ready set: RECOVER): their turns here must end.
const RENEW = redisScript(
  'readyRenew',
  `local lost = {}
for i = 3, #ARGV do
  local holder = redis.call('HGET', KEYS[2], ARGV[i])
  if (holder and holder ~= ARGV[2]) or not redis.call('ZSCORE', KEYS[1], ARGV[i]) then lost[#lost + 1] = ARGV[i]
  else redis.call('ZADD', KEYS[1], 'XX', ARGV[1], ARGV[i]) end
end
return lost`,
);

// KEYS: ready, lease, pass, vt, owner. ARGV: now. The leases that ended unreleased (at most 100): each account back in
// the ready set at its pass (no lower than the shard's time), its lease and owner gone; answers them.
const RECOVER = redisScript(
  'readyRecover',
  `local ended = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, 100)
if #ended == 0 then return ended end
local vt = tonumber(redis.call('GET', KEYS[4]) or '0')
for _, m in ipairs(ended) do
  redis.call('ZREM', KEYS[2], m)
  redis.call('HDEL', KEYS[5], m)
  redis.call('ZADD', KEYS[1], 'NX', math.max(vt, tonumber(redis.call('HGET', KEYS[3], m) or '0')), m)
end
return ended`,
);

/** The ready set's `renew` (RENEW, one script a shard): answers the accounts another process holds now. */
export async function renewLeases(c: ReadyContext, accounts: readonly string[], until: number): Promise<string[]> {
  const byShard = new Map<number, string[]>();
  for (const a of accounts) {
    const s = shardOf(a, c.shards);
    const names = byShard.get(s) ?? [];
    names.push(a);
    byShard.set(s, names);
  }
  const lost = await Promise.all(
    [...byShard].map(([s, names]) => {
      const k = shardKeys(c.base, s);
      return runScript(c.redis, RENEW, [2, k.lease, k.owner, Math.round(until), c.owner, ...names]) as Promise<string[]>;
    }),
  );
  return lost.flat();
}

/**
 * The ready set's `recover`: each shard's leases that ended unreleased given back to it (one script a shard), at most
 * once every `everyMs` (the dispatcher asks each second); answers the accounts given back.
 */
export function recoverer(c: ReadyContext) {
  let last = -Infinity;
  return async (now: number, everyMs: number): Promise<string[]> => {
    if (now - last < everyMs) return [];
    last = now;
    const back: string[] = [];
    for (let s = 0; s < c.shards; s++) {
      const k = shardKeys(c.base, s);
      back.push(...((await runScript(c.redis, RECOVER, [5, k.ready, k.lease, k.pass, k.vt, k.owner, Math.round(now)])) as string[]));
    }
    return back;
  };
}
