import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { shardKeys, shardOf } from '../../../src/queue/dispatch/ready-set.js';
import { connect } from '../../helpers/redis.js';
import { eventually } from '../../cli/worker-process.js';
import { dropWorlds, world } from './dispatch-world.js';

/**
 * Issue 56: a process's dispatcher (src/queue/dispatch/dispatcher.ts) over a real ready set. Its turns here are the
 * test's own (what an account's workers would be: how many jobs run, what its queues hold: dispatch-world.ts), so that
 * places, idle closes, hand-backs and wakes are seen exactly; the `worker` tests (test/accounts/) run the real ones.
 */
let redis: Redis;
beforeAll(() => {
  redis = connect();
});
afterAll(async () => {
  await dropWorlds(redis);
  redis.disconnect();
});

describe("a process's dispatcher", () => {
  it('opens at most its places, closes an account idle for its idle time, and opens nothing more', async () => {
    const w = world(redis, { places: 2 });
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
    const w = world(redis, { places: 1, turnMs: 400 });
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

  it('closes a turn whose lease another process took (this one stalled), leaving that process’s lease alone', async () => {
    const w = world(redis, { places: 2, idleMs: 60_000 });
    try {
      w.work.set('acme', { ready: 5 });
      await w.dispatcher.mark('acme');
      await eventually(async () => w.open.has('acme'), 5_000, 'acme open');
      // Another process claimed it while this one stalled past its lease: the lease is that one's now.
      const k = shardKeys(w.base, 0);
      await redis.hset(k.owner, 'acme', 'another-process');
      const leased = Date.now() + 30_000;
      await redis.zadd(k.lease, leased, 'acme');
      await eventually(async () => !w.open.has('acme'), 5_000, 'acme closed here');
      expect(w.dispatcher.open()).not.toContain('acme');
      expect(Number(await redis.zscore(k.lease, 'acme'))).toBe(leased);
      expect(await redis.hget(k.owner, 'acme')).toBe('another-process');
    } finally {
      await w.dispatcher.stop();
    }
  });

  it('takes up an account a dead process held open once its lease ends, with no mark and no sweep', async () => {
    const w = world(redis, { places: 2, idleMs: 60_000 });
    try {
      // A process died with acme open: its lease runs out in 300 ms, and acme is out of the ready set (a claim takes it
      // out); its work waits.
      w.work.set('acme', { ready: 5 });
      const k = shardKeys(w.base, 0);
      await redis.hset(k.owner, 'acme', 'dead-process');
      await redis.zadd(k.lease, Date.now() + 300, 'acme');
      const killed = Date.now();
      // Given back at a look a third of a lease (here 10 s) apart at most, then claimed here.
      await eventually(async () => w.open.has('acme'), 8_000, 'acme open here');
      expect(Date.now() - killed).toBeLessThan(8_000);
      expect(await redis.hget(k.owner, 'acme')).toBe(w.ready.owner);
    } finally {
      await w.dispatcher.stop();
    }
  });

  it('asks for a wake at the outage’s next probe of an account it closes with jobs held by it, not a minute later', async () => {
    const w = world(redis, { places: 2 });
    try {
      // Held by an outage whose next probe may go in 5 s (only a turn sends it), and one held by something else.
      const probeAt = Date.now() + 5_000;
      w.work.set('down', { ready: 0, held: 3, nextProbeAt: probeAt });
      w.work.set('paused', { ready: 0, held: 3 });
      await w.dispatcher.mark('down');
      await w.dispatcher.mark('paused');
      await eventually(async () => w.wakes.length >= 2, 5_000, 'wakes asked for');
      const closedAt = Date.now();
      expect(w.wakes.find(([name]) => name === 'down')![1]).toBe(probeAt);
      // The other is looked at within a minute, as before.
      const paused = w.wakes.find(([name]) => name === 'paused')![1];
      expect(paused).toBeGreaterThan(closedAt + 50_000);
      expect(paused).toBeLessThanOrEqual(closedAt + 60_000);
    } finally {
      await w.dispatcher.stop();
    }
  });

  it('asks for a wake at the next delayed job of an account it closes, and hands back one it does not run', async () => {
    const w = world(redis, { places: 2 });
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
    const w = world(redis, { places: 3, turnMs: 300 });
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

  it('gives an account weighted 2 about twice the time of one weighted 1, in different shards', async () => {
    // Names in different shards of 8 (the weights must hold across shards, not only within one).
    const names = Array.from({ length: 40 }, (_, i) => `acct-${i}`);
    const heavy = names[0]!;
    const light = names.find((n) => shardOf(n, 8) !== shardOf(heavy, 8))!;
    const w = world(redis, { places: 1, turnMs: 100, shards: 8, weights: { [heavy]: 2, [light]: 1 } });
    try {
      for (const name of [heavy, light]) {
        w.work.set(name, { ready: 1 });
        await w.dispatcher.mark(name);
      }
      // A turn of `heavy` that its pass would give it again stays open: its share is the time it holds the place.
      await eventually(async () => (w.turns.get(light) ?? 0) >= 8, 30_000, 'eight turns of the light account');
      const ratio = w.heldMs(heavy) / w.heldMs(light);
      expect(ratio).toBeGreaterThan(1.5);
      expect(ratio).toBeLessThan(2.6);
    } finally {
      await w.dispatcher.stop();
    }
  });

  it('closes an account with nothing to do at once, not after its idle time, when the process is full and another waits', async () => {
    const w = world(redis, { places: 1, idleMs: 60_000 });
    try {
      w.work.set('quiet', { ready: 1 });
      await w.dispatcher.mark('quiet');
      await eventually(async () => w.open.has('quiet'), 5_000, 'quiet open');
      w.work.set('quiet', { ready: 0 });
      w.work.set('waiter', { ready: 1 });
      await w.dispatcher.mark('waiter');
      // Its idle time is a minute: the place goes to `waiter` long before.
      await eventually(async () => w.open.has('waiter'), 5_000, 'waiter open');
      expect(w.open.has('quiet')).toBe(false);
    } finally {
      await w.dispatcher.stop();
    }
  });

  it('hands the place of an account with nothing to do to one marked while the process is full at once, not at its next look', async () => {
    // A look every 5 s: only the look brought forward by the mark hands the place over within the second.
    const reads = new Map<string, number>();
    const w = world(redis, { places: 1, idleMs: 60_000, lookMs: 5_000, afterRead: (n) => reads.set(n, (reads.get(n) ?? 0) + 1) });
    try {
      w.work.set('quiet', { ready: 1 });
      await w.dispatcher.mark('quiet');
      await eventually(async () => w.open.has('quiet'), 5_000, 'quiet open');
      // Full, nobody waiting: no look comes sooner than its 5 s.
      await new Promise((r) => setTimeout(r, 1_000));
      expect(reads.get('quiet') ?? 0).toBe(0);
      w.work.set('quiet', { ready: 0 });
      w.work.set('waiter', { ready: 1 });
      const marked = Date.now();
      await w.dispatcher.mark('waiter');
      await eventually(async () => w.open.has('waiter'), 5_000, 'waiter open');
      expect(Date.now() - marked).toBeLessThan(1_000);
      expect(w.open.has('quiet')).toBe(false);
    } finally {
      await w.dispatcher.stop();
    }
  });

  it('keeps a turn open that would be claimed straight back, though another account waits', async () => {
    const w = world(redis, { places: 1, turnMs: 150 });
    try {
      w.work.set('busy', { ready: 1 });
      await w.dispatcher.mark('busy');
      await eventually(async () => w.open.has('busy'), 5_000, 'busy open');
      // `other` waits with a pass far above what `busy` is charged: each hand-back would give `busy` the place again.
      w.work.set('other', { ready: 1 });
      await redis.hset(shardKeys(w.base, 0).pass, 'other', 1_000_000);
      await w.dispatcher.mark('other');
      const k = shardKeys(w.base, 0);
      await eventually(async () => Number(await redis.hget(k.pass, 'busy')) >= 0.6, 10_000, 'busy charged several turns');
      // Charged turn after turn, never closed and opened again; `other` still waits.
      expect(w.turns.get('busy')).toBe(1);
      expect(w.open.has('busy')).toBe(true);
      expect(w.turns.has('other')).toBe(false);
      expect(await w.ready.waiting(0, Date.now())).toBe(1);
    } finally {
      await w.dispatcher.stop();
    }
  });

  it('does not open an account again for the mark its own jobs made while it was open', async () => {
    // Its jobs add jobs of its own while it runs (an order's intake adds the order): each add marks it.
    const w = world(redis, { places: 2, onStart: async (name) => void (await w.ready.mark(name)) });
    try {
      w.work.set('solo', { ready: 1 });
      await w.dispatcher.mark('solo');
      await eventually(async () => w.open.has('solo'), 5_000, 'solo open');
      w.work.set('solo', { ready: 0 });
      await eventually(async () => !w.open.has('solo'), 5_000, 'solo closed once idle');
      // Nothing to do: it left the ready set; no second turn for nothing.
      await new Promise((r) => setTimeout(r, 1_000));
      expect(w.turns.get('solo')).toBe(1);
      expect(await redis.zscore(shardKeys(w.base, 0).ready, 'solo')).toBeNull();
    } finally {
      await w.dispatcher.stop();
    }
  });

  it('opens an account again whose work came in between its queues read at its close and its release', async () => {
    let closed = false;
    let added = false;
    const w = world(redis, {
      places: 2,
      onStart: async (name) => void (await w.ready.mark(name)),
      onClose: () => void (closed = true),
      // The first read after its close finds nothing; a job is added (its mark made before the release) right after.
      afterRead: (name) => {
        if (!closed || added) return;
        added = true;
        w.work.set(name, { ready: 1 });
        void w.ready.mark(name);
      },
    });
    try {
      w.work.set('late', { ready: 1 });
      await w.dispatcher.mark('late');
      await eventually(async () => w.open.has('late'), 5_000, 'late open');
      w.work.set('late', { ready: 0 });
      await eventually(async () => (w.turns.get('late') ?? 0) === 2, 5_000, 'late open again for the job added');
    } finally {
      await w.dispatcher.stop();
    }
  });
});
