import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { startOutageWatch, type OutageWatch } from '../../../src/queue/hold/hold-watch.js';
import { endOutage, openedAt, recordServiceDown } from '../../../src/queue/hold/outage-state.js';
import { queueWorld, sleep, type QueueWorld } from '../support.js';

let w: QueueWorld;
let watch: OutageWatch | undefined;

beforeEach(async () => {
  w = await queueWorld('outage-watch');
});
afterEach(async () => {
  await watch?.stop();
  watch = undefined;
  await w.close();
});

const q = () => w.queues.get('orders');

/** The world's connection, counting the looks (each starts with one HMGET of the outage hash). */
function counted(): { redis: Redis; looks: () => number } {
  let looks = 0;
  const redis = new Proxy(w.redis, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (prop === 'hmget') return (...args: unknown[]) => (looks++, (v as (...a: unknown[]) => unknown).apply(target, args));
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { redis, looks: () => looks };
}

async function until(what: () => Promise<boolean>, ms = 10_000): Promise<number> {
  const start = Date.now();
  while (!(await what())) {
    if (Date.now() - start > ms) throw new Error('timed out');
    await sleep(10);
  }
  return Date.now() - start;
}

describe('the outage watch (issue 36: it looks less often while nothing is held)', () => {
  it('looks every idleLookMs while no outage holds its queues, every lookMs while one does, and at once when asked', async () => {
    const { redis, looks } = counted();
    watch = startOutageWatch({
      redis: redis as unknown as QueueWorld['redis'],
      keys: w.keys,
      queues: new Map([['orders', q()]]),
      probe: async () => ({ up: false, detail: 'HTTP 503' }),
      logger: w.logger,
      lookMs: 100,
      idleLookMs: 1_000,
      probeMaxMs: 60_000,
    });
    // Idle: the first look at the first tick, then one a second (at lookMs: about 22).
    await sleep(2_250);
    expect(looks()).toBeGreaterThanOrEqual(2);
    expect(looks()).toBeLessThanOrEqual(4);
    const before = looks();
    watch.lookNow();
    await until(async () => looks() > before);

    // Another process opens an outage: this one holds its queue at its next idle look, within about a second.
    await recordServiceDown(w.redis, w.keys, { threshold: 1, reason: '[TRANSIENT] 503', firstProbeMs: 60_000 });
    const heldAfter = await until(() => q().isPaused());
    expect(heldAfter).toBeLessThan(1_000 + 300);
    // Held: a look every 100 ms.
    const held = looks();
    await sleep(1_000);
    expect(looks() - held).toBeGreaterThanOrEqual(6);

    // Another process ends it: this one lets its queue go at its next look, within lookMs.
    const since = (await openedAt(w.redis, w.keys))!;
    expect(await endOutage(w.redis, w.keys, since, 0)).toBe(true);
    const goneAfter = await until(async () => !(await q().isPaused()));
    expect(goneAfter).toBeLessThan(100 + 300);
  });

  it('looks every lookMs whatever the state when only lookMs is given (the timing tests use)', async () => {
    const { redis, looks } = counted();
    watch = startOutageWatch({
      redis: redis as unknown as QueueWorld['redis'],
      keys: w.keys,
      queues: new Map([['orders', q()]]),
      probe: async () => ({ up: true, detail: 'HTTP 404' }),
      logger: w.logger,
      lookMs: 100,
    });
    await sleep(1_050);
    expect(looks()).toBeGreaterThanOrEqual(7);
  });
});
