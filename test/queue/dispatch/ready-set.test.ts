import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readySet, shardKeys, shardOf, type ReadySet } from '../../../src/queue/dispatch/ready-set.js';
import { connect, uniquePrefix } from '../../helpers/redis.js';
import type { Redis } from 'ioredis';

/**
 * Issue 56: the ready set (src/queue/dispatch/ready-set.ts) on a real Redis. Stride scheduling: the lowest pass goes
 * next, a turn is charged its length over the account's weight, an account back from idle starts at the shard's time;
 * a leased account is no one else's until released or its lease ends; a mark made while it is open is not lost.
 */
let redis: Redis;
const bases: string[] = [];
const fresh = (shards = 1): { base: string; ready: ReadySet } => {
  const base = uniquePrefix('ready');
  bases.push(base);
  return { base, ready: readySet(redis, base, shards) };
};

beforeAll(() => {
  redis = connect();
});
afterAll(async () => {
  for (const base of bases)
    for (let s = 0; s < 8; s++) {
      const k = shardKeys(base, s);
      await redis.del(k.ready, k.lease, k.pass, k.vt, k.owner);
    }
  redis.disconnect();
});

/** Claims `turns` times, each turn charged `length` seconds and handed back with work left; answers the turns of each. */
async function turns(ready: ReadySet, n: number, length: (name: string) => number): Promise<Map<string, number>> {
  const got = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const name = await ready.claim(0, Date.now(), 30_000);
    if (!name) break;
    got.set(name, (got.get(name) ?? 0) + 1);
    await ready.release(name, length(name), true);
  }
  return got;
}

describe('the ready set', () => {
  it('gives two accounts that always have work equal turns, and one weighted 2 twice the turns', async () => {
    const { ready } = fresh();
    await ready.mark('a');
    await ready.mark('b');
    const even = await turns(ready, 100, () => 1);
    expect(Math.abs(even.get('a')! - even.get('b')!)).toBeLessThanOrEqual(1);
    // Weighted: `b` is charged half a turn's length (the dispatcher divides by ACCOUNT_WEIGHT).
    const weighted = await turns(ready, 300, (name) => (name === 'b' ? 0.5 : 1));
    expect(weighted.get('b')! / weighted.get('a')!).toBeGreaterThan(1.9);
    expect(weighted.get('b')! / weighted.get('a')!).toBeLessThan(2.1);
  });

  it('charges a turn by its length: a trickle account goes before a backlog that held its place long', async () => {
    const { ready } = fresh();
    await ready.mark('backlog');
    await ready.mark('trickle');
    // The backlog holds its place 60 s a turn, the trickle 1 s: the trickle gets about 60 turns to one.
    const got = await turns(ready, 122, (name) => (name === 'backlog' ? 60 : 1));
    expect(got.get('trickle')!).toBeGreaterThanOrEqual(110);
    expect(got.get('backlog')!).toBeGreaterThanOrEqual(1);
  });

  it('starts an account back from idle at the shard time, with no credit for the time it had nothing to do', async () => {
    const { ready } = fresh();
    await ready.mark('busy');
    await turns(ready, 50, () => 1);
    await ready.mark('newcomer');
    // Were it scored 0, the newcomer would take the next 50 turns; at the shard's time, they alternate.
    const got = await turns(ready, 20, () => 1);
    expect(got.get('newcomer')!).toBeLessThanOrEqual(11);
    expect(got.get('busy')!).toBeGreaterThanOrEqual(9);
  });

  it('leases a claimed account to one process until it is handed back, or its lease ends', async () => {
    const { ready } = fresh();
    await ready.mark('a');
    const now = Date.now();
    expect(await ready.claim(0, now, 1_000)).toBe('a');
    // Marked again while open (a job added): still no one else's while the lease lasts.
    await ready.mark('a');
    expect(await ready.claim(0, now + 500, 1_000)).toBeUndefined();
    expect(await ready.waiting(0, now + 500)).toBe(0);
    // Its process died: the lease ends, and another takes it.
    expect(await ready.waiting(0, now + 1_500)).toBe(1);
    expect(await ready.claim(0, now + 1_500, 1_000)).toBe('a');
  });

  it('lets a process that stalled past its lease neither renew, keep nor release the account another process took', async () => {
    const { base, ready: first } = fresh();
    const second = readySet(redis, base, 1);
    await first.mark('a');
    const now = Date.now();
    expect(await first.claim(0, now, 1_000)).toBe('a');
    // The first renews while it holds the lease.
    expect(await first.renew(['a'], now + 1_000)).toEqual([]);
    // It stalls past the lease; the account, marked again, is claimed by the second.
    await first.mark('a');
    expect(await second.claim(0, now + 1_500, 30_000)).toBe('a');
    const k = shardKeys(base, 0);
    const leased = await redis.zscore(k.lease, 'a');
    // Back, the first is told the account is lost, and its renew, keep and release leave the second's lease as it is.
    expect(await first.renew(['a'], now + 60_000)).toEqual(['a']);
    expect(await first.keep('a', 1, now + 1_600, 30_000)).toBe(false);
    await first.release('a', 1, false);
    expect(await redis.zscore(k.lease, 'a')).toBe(leased);
    expect(await redis.hget(k.owner, 'a')).toBe(second.owner);
    // The second goes on as the holder, and releases it.
    expect(await second.renew(['a'], now + 60_000)).toEqual([]);
    await second.release('a', 1, false);
    expect(await redis.zscore(k.lease, 'a')).toBeNull();
  });

  it('gives back an account whose process died mid-turn once its lease ends, though nothing marked it again', async () => {
    const { base, ready: dead } = fresh(2);
    const alive = readySet(redis, base, 2);
    const shard = shardOf('a', 2);
    await dead.mark('a');
    await dead.mark('b');
    const now = Date.now();
    // Both claimed by the process that then dies (a claim takes the account out of the ready set while it is open).
    expect(await dead.claim(shard, now, 1_000)).toBe('a');
    const k = shardKeys(base, shard);
    await redis.hset(k.pass, 'a', '7');
    expect(await alive.claim(shard, now + 500, 30_000)).toBeUndefined();
    // Before its lease ends: nothing given back. After: back at its pass, its lease and owner gone, and claimed.
    expect(await alive.recover(now + 900, 0)).toEqual([]);
    expect(await alive.recover(now + 1_100, 0)).toEqual(['a']);
    expect(await redis.zscore(k.ready, 'a')).toBe('7');
    expect(await redis.zscore(k.lease, 'a')).toBeNull();
    expect(await redis.hget(k.owner, 'a')).toBeNull();
    expect(await alive.claim(shard, now + 1_200, 30_000)).toBe('a');
    // At most once every `everyMs` (the dispatcher asks each second): its lease ended at now + 31.2 s, given back by the
    // first look a minute after the last.
    expect(await alive.recover(now + 40_000, 60_000)).toEqual([]);
    expect(await alive.recover(now + 62_000, 60_000)).toEqual(['a']);
  });

  it('tells a process whose lease was given back that the account is lost: no renewal brings it back', async () => {
    const { base, ready: first } = fresh();
    const other = readySet(redis, base, 1);
    await first.mark('a');
    const now = Date.now();
    expect(await first.claim(0, now, 1_000)).toBe('a');
    expect(await other.recover(now + 1_500, 0)).toEqual(['a']);
    expect(await first.renew(['a'], now + 60_000)).toEqual(['a']);
    expect(await redis.zscore(shardKeys(base, 0).lease, 'a')).toBeNull();
  });

  it('drops a mark made while the account was open when its turn ends with nothing left, and keeps it with work left', async () => {
    const { ready } = fresh();
    await ready.mark('a');
    expect(await ready.claim(0, Date.now(), 30_000)).toBe('a');
    // Its own jobs marked it during its turn; it ended with nothing to do: it leaves the set (no turn for nothing).
    await ready.mark('a');
    await ready.release('a', 1, false);
    expect(await ready.claim(0, Date.now(), 30_000)).toBeUndefined();
    // Marked again once closed (work came in after its queues were read): it takes a turn.
    await ready.mark('a');
    expect(await ready.claim(0, Date.now(), 30_000)).toBe('a');
    await ready.release('a', 1, true);
    expect(await ready.claim(0, Date.now(), 30_000)).toBe('a');
  });

  it('keeps a turn open that would be claimed straight back, charged, and lets it go when another waits with a lower pass', async () => {
    // Two shards: the waiting account is in the other one (its pass is read there first).
    const names = Array.from({ length: 20 }, (_, i) => `k-${i}`);
    const a = names[0]!;
    const b = names.find((n) => shardOf(n, 2) !== shardOf(a, 2))!;
    const { base, ready } = fresh(2);
    const ka = shardKeys(base, shardOf(a, 2));
    await ready.mark(a);
    const now = Date.now();
    expect(await ready.claim(shardOf(a, 2), now, 1_000)).toBe(a);
    // Alone: kept, charged, leased again (no one else may claim it), its mark made while open taken.
    await ready.mark(a);
    expect(await ready.keep(a, 5, now, 30_000)).toBe(true);
    expect(Number(await redis.hget(ka.pass, a))).toBe(5);
    expect(Number(await redis.zscore(ka.lease, a))).toBe(now + 30_000);
    expect(await redis.zscore(ka.ready, a)).toBeNull();
    expect(Number(await redis.get(ka.vt))).toBe(5);
    // `b` waits in the other shard at pass 7 (its own time is 0): `a` charged 1 more (6) is still the lowest.
    await redis.hset(shardKeys(base, shardOf(b, 2)).pass, b, 7);
    await ready.mark(b);
    expect(await ready.keep(a, 1, now, 30_000)).toBe(true);
    // Charged 5 more (11), `b` goes first: nothing changes, the turn is closed and released as before.
    expect(await ready.keep(a, 5, now, 30_000)).toBe(false);
    expect(Number(await redis.hget(ka.pass, a))).toBe(6);
    // Unless this process skips `b` (it does not run it).
    expect(await ready.keep(a, 5, now, 30_000, [b])).toBe(true);
    expect(Number(await redis.hget(ka.pass, a))).toBe(11);
  });

  it('skips what a process asks it to skip, and forgets an account removed', async () => {
    const { ready } = fresh();
    await ready.mark('a');
    await ready.mark('b');
    const first = await ready.claim(0, Date.now(), 30_000, ['a']);
    expect(first).toBe('b');
    await ready.forget('a');
    expect(await ready.claim(0, Date.now(), 30_000)).toBeUndefined();
  });

  it('spreads accounts over the shards, each under a hash tag of its own, the same in every process', () => {
    const names = Array.from({ length: 800 }, (_, i) => `account-${i}`);
    const counts = new Array<number>(8).fill(0);
    for (const n of names) counts[shardOf(n, 8)]!++;
    for (const c of counts) expect(c).toBeGreaterThan(60);
    expect(shardOf('acme', 8)).toBe(shardOf('acme', 8));
    const k = shardKeys('isync', 3);
    expect(k.ready).toBe('{isync~ready~3}:ready');
    expect(new Set(Object.values(k).map((key) => /\{[^}]+\}/.exec(key)![0])).size).toBe(1);
  });
});
