import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALL_FAILED } from '../../src/queue/hold/call-hold-scripts.js';
import { noteHeldJob } from '../../src/queue/hold/call-held-jobs.js';
import { recordServiceDown } from '../../src/queue/hold/outage-state.js';
import { startWorkerPresence } from '../../src/ops/worker-presence.js';
import { runScript } from '../../src/redis/scripts.js';
import { jobIdFor } from '../../src/queue/job-id.js';
import { orderRecord } from '../helpers/order-records.js';
import { redisUrl } from '../helpers/redis.js';
import { testWorld, type TestWorld } from '../helpers/test-world.js';
import { orderKind } from '../../jobs/orders/order-kind.js';
import { raw, startTestDashboard, type TestDashboard } from '../dashboard/dashboard-http.js';
import { baseEnv, runCli } from './run-cli.js';

/**
 * Issue 55: with the whole service down, `status` and the dashboard say one truth about the holds: a call held inside
 * the outage is not said to leave every other call running, and a probe's or a trial's time that has passed is not
 * "the next" (it is due, or no worker runs to send it).
 */

interface StatusJson {
  outage: { open: boolean; waiting: number; probes: number; nextProbeAt: string };
  calls: Array<{ call: string; held: boolean; trials: number; nextTrialAt: string | null; waiting: Record<string, number> }>;
}

/** The HELD block and the outage lines of `status` for a person (up to the streams' table). */
const holdsOf = (text: string) => text.slice(0, text.indexOf('STREAM'));
/** The overview's banners, tags taken out, entities as text. */
const bannersOf = (html: string) =>
  html
    .slice(html.indexOf('<main>'), html.indexOf('<form id="find"'))
    .replace(/<[^>]+>/g, '')
    .replaceAll('&quot;', '"')
    .replaceAll('&amp;', '&');

describe('status and the dashboard, when the whole service is down and a call was held before it', () => {
  let world: TestWorld;
  let t: TestDashboard;
  let env: Record<string, string>;
  const orders = [orderRecord('HD-1'), orderRecord('HD-2'), orderRecord('HD-3')];
  // Both a minute ago: the first probe and the first trial were due 58 s ago.
  const since = Date.now() - 60_000;

  beforeAll(async () => {
    world = await testWorld('status-holds', { streams: ['orders'], workers: false });
    env = { ...baseEnv(), REDIS_URL: redisUrl(), QUEUE_PREFIX: world.prefix };
    await world.add('orders', orders);
    const keys = world.keys;
    // Shipment creates held first (three service-down answers in a row), two jobs waiting at it...
    const reason = '[TRANSIENT] POST /demo/api/shipment answered 503: unavailable';
    for (let i = 0; i < 3; i++)
      await runScript(world.redis, CALL_FAILED, [1, keys.callHolds(), 'shipment-create', since, 3, reason, 'TRANSIENT', 2000, 30_000, '']);
    for (const o of orders.slice(0, 2)) await noteHeldJob(world.redis, keys, 'shipment-create', 'orders', jobIdFor(orderKind, o));
    // ...then its read probe found the rest of the service down too: the outage.
    const down = '[TRANSIENT] GET /demo/api/order/HD-0 could not reach the service (ECONNREFUSED)';
    await recordServiceDown(world.redis, keys, { threshold: 1, reason: down, firstProbeMs: 2000, now: since });
    t = await startTestDashboard({ prefix: world.prefix });
  }, 60_000);

  afterAll(async () => {
    await t?.dashboard.close();
    t?.redis.disconnect();
    await world?.close();
  });

  describe('while no worker runs', () => {
    it('says the probe was due and that no worker runs to send it, and the call waits for the service', async () => {
      const text = holdsOf((await runCli(['status'], env)).stdout);
      expect(text).toMatch(/^SERVICE DOWN since .* UTC, 3 jobs waiting\. Why: \[TRANSIENT\] GET /m);
      expect(text).toMatch(/0 probes so far, the next was due at \S+ \S+ UTC, and no worker runs to send it;/);
      expect(text).toMatch(/^HELD: shipment create since .* UTC, 2 jobs wait at it \(orders 2\)\. Why: /m);
      expect(text).toContain('the service is down for everything (above), so every stream holds.');
      expect(text).toContain('0 trials so far; its trial goes once the service answers again');
      expect(text).not.toContain('every other call and stream goes on');
      expect(text).not.toMatch(/the next at/);
    });

    it('shows the same on the dashboard, and its JSON is status --json', async () => {
      const text = holdsOf((await runCli(['status'], env)).stdout);
      const banners = bannersOf((await raw(`${t.base}/`)).body);
      const probes = /0 probes so far, [^;]*;/.exec(text)![0];
      expect(banners).toContain('3 jobs wait, none lost.');
      expect(banners).toContain(probes);
      expect(banners).toContain('shipment create is held');
      expect(banners).toContain('2 jobs wait at it (orders 2). Only the jobs whose next step is shipment create wait there');
      expect(banners).toContain('the service is down for everything (above), so every stream holds.');
      expect(banners).not.toContain('every other call and stream goes on');
      expect(banners).not.toContain('the next at');

      const mine = JSON.parse((await runCli(['status', '--json'], env)).stdout) as StatusJson;
      const theirs = JSON.parse((await raw(`${t.base}/api/status`)).body) as StatusJson;
      expect(mine.outage).toMatchObject({ open: true, waiting: 3, probes: 0 });
      expect(Date.parse(mine.outage.nextProbeAt)).toBeLessThan(Date.now());
      const held = mine.calls.find((c) => c.call === 'shipment-create');
      expect(held).toMatchObject({ held: true, trials: 0, waiting: { orders: 2 } });
      expect(theirs.outage).toEqual(mine.outage);
      expect(theirs.calls).toEqual(mine.calls);
    });
  });

  describe('while a worker runs', () => {
    it('says the probe is due now, for the worker to send', async () => {
      const presence = startWorkerPresence(world.redis, world.keys, { pulls: true, ingest: null });
      try {
        await new Promise((r) => setTimeout(r, 100));
        const text = holdsOf((await runCli(['status'], env)).stdout);
        expect(text).toMatch(/0 probes so far, the next due now \(since \S+ \S+ UTC\): a worker sends it at its next look;/);
        expect(bannersOf((await raw(`${t.base}/`)).body)).toMatch(/the next due now \(since \S+ \S+ UTC\): a worker sends it/);
      } finally {
        await presence.stop();
      }
    });
  });
});
