import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { startDispatcher, type Dispatcher } from '../../../src/queue/dispatch/dispatcher.js';
import { readySet, shardKeys, shardOf } from '../../../src/queue/dispatch/ready-set.js';
import type { AccountWork } from '../../../src/queue/dispatch/account-work.js';
import { createLogger } from '../../../src/log/logger.js';
import { connect, uniquePrefix } from '../../helpers/redis.js';
import { eventually } from '../../cli/worker-process.js';

/**
 * Issue 56: a process's dispatcher (src/queue/dispatch/dispatcher.ts) over a real ready set. Its turns here are the
 * test's own (what an account's workers would be: how many jobs run, what its queues hold), so that places, idle
 * closes, hand-backs and wakes are seen exactly; the `worker` tests (test/accounts/) run the real ones.
 */
let redis: Redis;
const bases: string[] = [];
beforeAll(() => {
  redis = connect();
});
afterAll(async () => {
  for (const base of bases)
    for (let shard = 0; shard < 8; shard++) {
      const k = shardKeys(base, shard);
      await redis.del(k.ready, k.lease, k.pass, k.vt);
    }
  redis.disconnect();
});

/** A world of accounts whose work the test sets, served by one dispatcher. */
function world(o: { places: number; turnMs?: number; shards?: number; weights?: Record<string, number> }) {
  const base = uniquePrefix('dispatch');
  bases.push(base);
  const ready = readySet(redis, base, o.shards ?? 1);
  const openWhen = new Map<string, string[]>();
  const work = new Map<string, Partial<AccountWork>>();
  const open = new Set<string>();
  const turns = new Map<string, number>();
  const wakes: Array<[string, number]> = [];
  let mostOpen = 0;
  const dispatcher: Dispatcher = startDispatcher({
    ready,
    logger: createLogger({ level: 'silent' }),
    places: o.places,
    idleMs: 300,
    turnMs: o.turnMs ?? 60_000,
    leaseMs: 10_000,
    pollMs: 50,
    lookMs: 100,
    lookAgainMs: 60_000,
    knows: (name) => name !== 'stranger',
    weight: (name) => o.weights?.[name] ?? 1,
    startTurn: async (name) => {
      if (!openWhen.has(name)) openWhen.set(name, [...open]);
      open.add(name);
      mostOpen = Math.max(mostOpen, open.size);
      turns.set(name, (turns.get(name) ?? 0) + 1);
      return { active: () => 0, close: async () => void open.delete(name) };
    },
    work: async (name) => ({ ready: 0, held: 0, nextDelayedAt: null, waits: 0, untold: 0, heldCalls: 0, ...work.get(name) }),
    wakeAt: async (name, at) => void wakes.push([name, at]),
  });
  return { ready, work, open, openWhen, turns, wakes, dispatcher, mostOpen: () => mostOpen };
}

describe("a process's dispatcher", () => {
  it('opens at most its places, closes an account idle for its idle time, and opens nothing more', async () => {
    const w = world({ places: 2 });
    try {
      for (const name of ['a', 'b', 'c', 'd', 'e']) {
        w.work.set(name, { ready: 1 });
        await w.dispatcher.mark(name);
      }
      await eventually(async () => w.open.size === 2, 5_000, 'two accounts open');
      // Their work done, they close after the idle time and the next ones open, until every one had its turn.
      for (const name of ['a', 'b', 'c', 'd', 'e']) w.work.set(name, { ready: 0 });
      await eventually(async () => w.turns.size === 5 && w.open.size === 0, 10_000, 'every account had a turn and closed');
      expect(w.mostOpen()).toBe(2);
      expect([...w.turns.values()].every((n) => n === 1)).toBe(true);
    } finally {
      await w.dispatcher.stop();
    }
  });

  it('hands a place back after the turn length while others wait, and takes the account up again', async () => {
    const w = world({ places: 1, turnMs: 400 });
    try {
      for (const name of ['busy-1', 'busy-2']) {
        w.work.set(name, { ready: 1 });
        await w.dispatcher.mark(name);
      }
      // Both always have work: they take turns in the one place.
      await eventually(async () => (w.turns.get('busy-1') ?? 0) >= 2 && (w.turns.get('busy-2') ?? 0) >= 2, 15_000, 'two turns each');
      expect(w.mostOpen()).toBe(1);
    } finally {
      await w.dispatcher.stop();
    }
  });

  it('asks for a wake at the next delayed job of an account it closes, and hands back one it does not run', async () => {
    const w = world({ places: 2 });
    try {
      const at = Date.now() + 120_000;
      w.work.set('retrying', { ready: 0, nextDelayedAt: at });
      await w.dispatcher.mark('retrying');
      await w.dispatcher.mark('stranger');
      await eventually(async () => w.wakes.some(([name]) => name === 'retrying'), 5_000, 'a wake asked for');
      expect(w.wakes.find(([name]) => name === 'retrying')![1]).toBe(at);
      expect(w.turns.has('stranger')).toBe(false);
      // Handed back, it waits in the set for a process that runs it.
      expect(await w.ready.waiting(0, Date.now())).toBe(1);
    } finally {
      await w.dispatcher.stop();
    }
  });

  it('hands back only as many places as accounts wait, the longest turn first', async () => {
    const w = world({ places: 3, turnMs: 300 });
    try {
      for (const name of ['busy-1', 'busy-2', 'busy-3']) {
        w.work.set(name, { ready: 1 });
        await w.dispatcher.mark(name);
      }
      await eventually(async () => w.open.size === 3, 5_000, 'three busy accounts open');
      w.work.set('waiter', { ready: 1 });
      await w.dispatcher.mark('waiter');
      await eventually(async () => w.turns.has('waiter'), 5_000, 'the waiting account opened');
      // One place was handed back for it: the two other busy accounts were still open when it opened.
      expect(w.openWhen.get('waiter')!.filter((name) => name.startsWith('busy-'))).toHaveLength(2);
    } finally {
      await w.dispatcher.stop();
    }
  });

  it('gives an account weighted 2 about twice the turns of one weighted 1, in different shards', async () => {
    // Names in different shards of 8 (the weights must hold across shards, not only within one).
    const names = Array.from({ length: 40 }, (_, i) => `acct-${i}`);
    const heavy = names[0]!;
    const light = names.find((n) => shardOf(n, 8) !== shardOf(heavy, 8))!;
    const w = world({ places: 1, turnMs: 100, shards: 8, weights: { [heavy]: 2, [light]: 1 } });
    try {
      for (const name of [heavy, light]) {
        w.work.set(name, { ready: 1 });
        await w.dispatcher.mark(name);
      }
      await eventually(async () => (w.turns.get(light) ?? 0) >= 8, 20_000, 'eight turns of the light account');
      const ratio = (w.turns.get(heavy) ?? 0) / w.turns.get(light)!;
      expect(ratio).toBeGreaterThan(1.5);
      expect(ratio).toBeLessThan(2.6);
    } finally {
      await w.dispatcher.stop();
    }
  });
});
