import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLives } from '../../../bench/chaos/check-lives.js';
import type { LifeSnapshot, LifeSpec } from '../../../bench/chaos/life-scenario.js';
import type { Scenario } from '../../../bench/chaos/scenario.js';
import { shopifyOrders } from '../../../jobs/orders/transforms/shopify-orders.js';
import type { SandboxState } from '../../../src/sandbox/sandbox-entities.js';
import { restOrder } from '../../../src/sandbox/shopify/store-rest.js';
import { eventually } from '../../cli/worker-process.js';
import { cliInProcess } from '../../cli/cli-in-process.js';
import { liveLives, storeWorld, type StoreWorld } from './store-world.js';

/** Upstream names as the mapping file names them in the service. */
const NAMES: Record<string, string> = {
  'shopify:default': 'Main Warehouse',
  'shopify:default / shipping': 'Main Warehouse / A-03',
  'shopify:48752903 / shipping': 'Main Warehouse / A-01',
  'shopify:61430117 / shipping': 'Main Warehouse / A-02',
};
const named = <T extends { location: string }>(l: T): T => ({ ...l, location: NAMES[l.location] ?? l.location });

/** Each store order's last state, as the record its webhook (or a pull) makes, in the service's names. */
function lastStates(w: StoreWorld): Scenario {
  const lives = new Map<string, LifeSpec>();
  for (const o of w.store.admin.orders.orders.values()) {
    const r = shopifyOrders(restOrder(o, w.store.zone, w.store.domain)) as unknown as LifeSnapshot;
    const snap: LifeSnapshot = {
      ...r,
      origin: NAMES[r.origin] ?? r.origin,
      lines: r.lines.map(named),
      fulfillments: (r.fulfillments ?? []).map((f) => ({ ...f, lines: f.lines.map(named) })),
      returns: (r.returns ?? []).map((x) => ({ ...x, lines: x.lines.map(named) })),
    };
    lives.set(snap.orderId, {
      orderId: snap.orderId,
      kind: snap.status === 'cancelled' ? 'cancel' : 'full',
      snapshots: [snap],
      swapped: false,
    });
  }
  return { lives } as unknown as Scenario;
}

const violations = (scenario: Scenario, initial: SandboxState, final: SandboxState) =>
  checkLives(scenario, initial, final).flatMap((c) => c.violations);

let w: StoreWorld;
let initial: SandboxState;

beforeAll(async () => {
  // A Shopify Plus store's rate (1,000 points a second): the standard plan's 100 would take a minute to read 200
  // lives again (bench/store-pull.ts measures that); the bucket is obeyed the same way.
  w = await storeWorld('store-lives', { bucket: { maximumAvailable: 10_000, restoreRate: 1_000 } });
  initial = w.sandbox.admin.state();
  w.subscribe();
  // A fifth of the webhooks never come; the rest come up to 1.5 s late (so out of order), a third of them twice.
  w.store.admin.setFaults({ drop: 0.2, duplicate: 0.3, delayMs: [0, 1500] });
  w.startWorker({ SHOPIFY_POLL_SECONDS: '2' });
  await w.worker!.httpUrl;
  // The first read of the (empty) store is done: from now on what the pull finds first, no webhook brought.
  await eventually(
    async () => ((await w.redis.get(`${w.prefix}:cursor:orders`)) ?? '').includes('"counts":true'),
    20_000,
    'the first pull',
  );
}, 60_000);
afterAll(async () => {
  await w?.close();
});

describe('a store feeding the service through its webhooks and its pull', () => {
  describe('when 200 orders live their lives, a fifth of the webhooks lost and the rest late, out of order and twice', () => {
    it('ends with every order in the service as its last state in the store, each write once, the missed ones found by the pull', async () => {
      const started = Date.now();
      await liveLives(w.store, 200, { pauseEvery: 20, pauseMs: 100 });
      await w.store.admin.webhooksIdle();
      const scenario = lastStates(w);
      let left = violations(scenario, initial, w.sandbox.admin.state());
      // Looked at once a second: the check reads the whole account.
      for (const end = Date.now() + 120_000; left.length && Date.now() < end; left = violations(scenario, initial, w.sandbox.admin.state()))
        await new Promise((r) => setTimeout(r, 1_000));
      expect(left.slice(0, 10)).toEqual([]);
      console.log(`in the service as in the store after ${Date.now() - started} ms`);
      const counts = w.store.admin.webhookCounts();
      expect(counts.dropped).toBeGreaterThan(100);
      expect(counts.duplicated).toBeGreaterThan(100);
      // The pull found what the lost webhooks would have brought (some lost states were overtaken before any pull).
      const found = await w.redis.zcard(`${w.prefix}:store-found:orders`);
      expect(found).toBeGreaterThan(0);
      expect(found).toBeLessThanOrEqual(counts.dropped);
      const status = await cliInProcess(['status'], w.env);
      expect(status.stdout).toMatch(new RegExp(`orders: found by the pull that no webhook brought: ${found} in the last hour`));
      // No query was throttled: each waited for what the bucket held.
      expect(w.store.admin.answers.filter((a) => a.throttled)).toEqual([]);
    }, 180_000);
  });
});
