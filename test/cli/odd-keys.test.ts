import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FindResult } from '../../src/ops/find.js';
import type { JobStory } from '../../src/ops/job-inspect.js';
import { demoData } from '../../src/sandbox/demo-data.js';
import { SANDBOX_PROFILES } from '../../src/sandbox/sandbox-options.js';
import { raw, startTestDashboard, type TestDashboard } from '../dashboard/dashboard-http.js';
import { countRecord } from '../helpers/count-record.js';
import { ODD_KEYS } from '../helpers/odd-keys.js';
import { orderRecord, orderState, syncedOnce } from '../helpers/order-records.js';
import { runCli } from './run-cli.js';
import { startStack, type Stack } from './stack.js';

/**
 * Issue 55: any key the upstream writes is a key. Each of ODD_KEYS is an orderId, a countId and the productId of a
 * BOM at once, synced in one world per profile; an orderId whose `..` climb out of the account's API is refused
 * before anything is written, as this program's refusal.
 */
const CLIMBS_OUT = 'A/../../../B';
const product = (i: number) => `SKU-${String(40 + i).padStart(4, '0')}`;
const LOCATION = 'Main Warehouse / A-02';

const data = demoData();
for (const key of ODD_KEYS) data.products!.push({ productId: key, internalName: null, productAssocList: [] });

const unescapeHtml = (s: string) =>
  s
    .replaceAll('&quot;', '"')
    .replaceAll('&#x27;', "'")
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');

describe.each(SANDBOX_PROFILES)('keys that hold URL characters (%s profile)', (profile) => {
  let stack: Stack;
  let dashboard: TestDashboard;
  const found = new Map<string, FindResult>();

  beforeAll(async () => {
    stack = await startStack(
      {
        orders: [...ODD_KEYS, CLIMBS_OUT].map((k) => orderRecord(k)),
        'stock-counts': ODD_KEYS.map((k, i) => countRecord(k, LOCATION, '2026-11-20', [[product(i), 500 + i]])),
        boms: ODD_KEYS.map((k) => ({ productId: k, components: [{ productId: 'SKU-0101', quantity: 2 }] })),
      },
      'odd-keys',
      { profile, data },
    );
    const sync = await runCli(['sync', '--once'], stack.env, { timeoutMs: 120_000 });
    // One order is refused (below): the run says so by its exit code.
    expect(sync.code, sync.stdout + sync.stderr).toBe(1);
    for (const key of [...ODD_KEYS, CLIMBS_OUT]) {
      const r = await runCli(['find', key, '--json'], stack.env);
      expect(r.code, `${key}: ${r.stderr}`).toBe(0);
      found.set(key, JSON.parse(r.stdout) as FindResult);
    }
    dashboard = await startTestDashboard({ prefix: stack.prefix });
  }, 180_000);
  afterAll(async () => {
    await dashboard?.close();
    await stack?.close();
  });

  describe('when each key is an orderId, a countId and the productId of a BOM', () => {
    it('syncs each once: an order completed with its shipment shipped, a variance, a bill of materials', () => {
      const state = stack.sandbox.admin.state();
      expect(syncedOnce(state, [...ODD_KEYS])).toBe(true);
      expect(state.orders.map((o) => o.orderUrl).sort()).toEqual(ODD_KEYS.map((k) => `/demo/api/order/${encodeURIComponent(k)}`).sort());
      const counters = stack.sandbox.admin.counters();
      expect(counters.creates).toEqual({ order: ODD_KEYS.length, shipment: ODD_KEYS.length, variance: ODD_KEYS.length });
      expect(counters.productUpdates).toBe(ODD_KEYS.length);
      ODD_KEYS.forEach((key, i) => {
        const at = state.facilities.find((f) => f.facilityName === 'A-02')!.facilityUrl;
        const productUrl = state.products.find((p) => p.productId === product(i))!.productUrl;
        expect(stack.sandbox.admin.stockOnHand(at, productUrl), key).toBe(500 + i);
        const bom = state.products.find((p) => p.productId === key)!;
        expect(bom.productUrl).toBe(`/demo/api/product/${encodeURIComponent(key)}`);
        expect(
          bom.productAssocList.flatMap((a) => a.productAssocItemList.map((x) => x.quantity)),
          key,
        ).toEqual([2]);
      });
    });

    it.each(ODD_KEYS)('find answers %j: its three jobs completed, and the order it made at its encoded URL', (key) => {
      const r = found.get(key)!;
      expect(r).toMatchObject({ key, found: true });
      expect(r.jobs.map((j) => [j.stream, j.state, j.version]).sort()).toEqual([
        ['boms', 'completed', 1],
        ['orders', 'completed', 1],
        ['stock-counts', 'completed', 1],
      ]);
      const orderUrl = `/demo/api/order/${encodeURIComponent(key)}`;
      expect(r.entities).toContainEqual(expect.objectContaining({ kind: 'order', url: orderUrl }));
      expect(r.entities).toContainEqual(expect.objectContaining({ kind: 'product', url: `/demo/api/product/${encodeURIComponent(key)}` }));
      expect(r.progress.order).toMatchObject({ step: 'completed', orderUrl });
    });

    it.each(ODD_KEYS)('jobs show answers each job of %j by its id', async (key) => {
      for (const job of found.get(key)!.jobs) {
        const r = await runCli(['jobs', 'show', job.id, '--json'], stack.env);
        expect(r.code, `${job.id}: ${r.stderr}`).toBe(0);
        const shown = JSON.parse(r.stdout) as JobStory;
        expect(shown).toMatchObject({ id: job.id, state: 'completed' });
        expect(Object.values(shown.record as Record<string, unknown>)).toContain(key);
      }
    });

    it('resync plans nothing for any of them: the service holds what their records say', async () => {
      const r = await runCli(['resync', ...ODD_KEYS, '--dry-run', '--json'], stack.env, { timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(0);
      const plans = (JSON.parse(r.stdout) as { plans: Array<{ key: string; outcome: string; calls: unknown[] }> }).plans;
      expect(plans.filter((p) => p.outcome === 'unchanged' && p.calls.length === 0).map((p) => p.key)).toEqual(
        expect.arrayContaining([...ODD_KEYS]),
      );
      expect(plans.filter((p) => p.calls.length > 0)).toEqual([]);
    });

    it.each(ODD_KEYS)("the dashboard's find page of %j links to each job's page, which links back to it", async (key) => {
      const page = await raw(`${dashboard.base}/find?key=${encodeURIComponent(key)}`);
      expect(page.status).toBe(200);
      const links = [...page.body.matchAll(/href="(\/jobs\/[^"]+)"/g)].map((m) => unescapeHtml(m[1]!));
      expect(new Set(links).size).toBe(3);
      for (const link of new Set(links)) {
        const job = await raw(`${dashboard.base}${link}`);
        expect(job.status, link).toBe(200);
        const back = /<a id="job-key" href="([^"]+)">/.exec(job.body)?.[1];
        expect(unescapeHtml(back ?? ''), link).toBe(`/find?key=${encodeURIComponent(key)}`);
      }
    });
  });

  describe('when an orderId climbs out of the account API', () => {
    it('fails NOT_FOLLOWED, saying this program refused, and nothing of it is written', () => {
      const [job] = found.get(CLIMBS_OUT)!.jobs;
      expect(job).toMatchObject({ stream: 'orders', state: 'failed', error: { code: 'NOT_FOLLOWED', retryHelps: false } });
      expect(job!.error!.message).toBe(
        'order A/../../../B: not created, for this program would refuse to follow its URL "/demo/api/order/A%2F..%2F..%2F..%2FB" ' +
          '(the service was not asked): the path leaves /demo/api/ once its dot-segments are resolved (a server may read it as "/demo/B")',
      );
      expect(job!.error!.message).not.toMatch(/service refused/);
      expect(job!.error!.hint).toMatch(/^This program refused to send the request, the service was not asked/);
      expect(orderState(stack.sandbox.admin.state(), CLIMBS_OUT).orders).toEqual([]);
      const sent = stack.sandbox.admin.requests().filter((q) => JSON.stringify(q.body ?? '').includes(CLIMBS_OUT));
      expect(sent).toEqual([]);
    });
  });
});
