import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDeps, type AppDeps } from '../../src/app/build-deps.js';
import { repairDrifts } from '../../src/app/repair.js';
import { runRecordJobs } from '../../src/app/run-jobs.js';
import { sandboxConfig } from '../../src/app/sandbox-config.js';
import { createLogger } from '../../src/log/logger.js';
import { recordJob } from '../../src/queue/record-jobs.js';
import { reconcile, storeReport } from '../../src/ops/reconcile.js';
import type { SandboxData } from '../../src/sandbox/sandbox-data-schema.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { programKinds } from '../../jobs/kinds.js';
import { orderRecord } from '../helpers/order-records.js';
import { connect, redisUrl, uniquePrefix } from '../helpers/redis.js';
import { testJobs } from '../helpers/test-world.js';
import { form, raw, startTestDashboard, type TestDashboard } from './dashboard-http.js';

const USER = 'ops';
const PASSWORD = 'correct-horse-battery';

/** Issue 28: the reconcile page plans each drift's repair, and its buttons run them (behind the login and the same-origin check). */
describe('dashboard, the reconcile page with repairs', () => {
  let sandbox: Sandbox;
  let deps: AppDeps;
  let t: TestDashboard;
  let cookie: string;
  const redis = connect();
  const prefix = uniquePrefix('dash-repair');
  const order = (id: string) => sandbox.admin.state().orders.find((o) => o.orderId === id)!;
  const reopen = (...ids: string[]) => {
    const state = JSON.parse(JSON.stringify(sandbox.admin.state())) as SandboxData & { orders: Array<Record<string, unknown>> };
    for (const o of state.orders) if (ids.includes(String(o.orderId))) o.statusId = 'ORDER_CREATED';
    sandbox.admin.reset(state);
  };
  const reconcileNow = async () =>
    storeReport(
      redis,
      await reconcile({ client: deps.client, catalog: deps.catalog, redis, prefix, queues: deps.queues, kinds: deps.kinds }),
    );
  const post = (fields: Record<string, string>, headers: Record<string, string> = { cookie, origin: t.base }) =>
    raw(`${t.base}/repair`, { method: 'POST', ...form(fields), headers: { ...form({}).headers, ...headers } });

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, data: 'demo' });
    const config = sandboxConfig(sandbox, { redis: redisUrl(), prefix, jobs: testJobs, catalogRefreshSeconds: 0 });
    deps = buildDeps(config, createLogger({ level: 'silent' }), { redis, budget: false, kinds: programKinds });
    const jobs = ['DR-1', 'DR-2', 'DR-3'].map((id) => recordJob(programKinds[0], orderRecord(id), 'feed').job);
    const ends = await runRecordJobs(deps, jobs, { kinds: deps.kinds });
    expect(ends.map((e) => e.outcome)).toEqual(['synced', 'synced', 'synced']);
    t = await startTestDashboard({ prefix, auth: { user: USER, password: PASSWORD }, repair: (ask) => repairDrifts(deps, ask) });
    cookie = await t.login(USER, PASSWORD);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await deps?.close();
    await sandbox?.close();
    redis.disconnect();
  });

  it('shows each drift with its planned repair and a Repair button, and one for all', async () => {
    reopen('DR-1', 'DR-2', 'DR-3');
    await reconcileNow();
    const page = await raw(`${t.base}/reconcile`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('complete the order');
    expect(page.body.match(/<form class="inline" method="post" action="\/repair">/g)).toHaveLength(3);
    expect(page.body).toContain('<button type="submit">Repair all</button>');
  });

  it('repairs one record on its button only from the dashboard itself with a session, and shows the result', async () => {
    const before = sandbox.admin.requests().filter((r) => r.method === 'POST').length;
    expect((await post({ stream: 'orders', key: 'DR-1' }, { cookie, origin: 'http://evil.example' })).status).toBe(403);
    expect([302, 303, 401]).toContain((await post({ stream: 'orders', key: 'DR-1' }, {})).status);
    expect((await post({ stream: 'nope', key: 'DR-1' })).status).toBe(400);
    expect(sandbox.admin.requests().filter((r) => r.method === 'POST').length).toBe(before);

    const r = await post({ stream: 'orders', key: 'DR-1' });
    expect(r.status).toBe(303);
    expect(decodeURIComponent(String(r.headers.location))).toContain('of DR-1: 1 repaired, 0 left to a person, 0 skipped; no drift left');
    expect(order('DR-1').statusId).toBe('ORDER_COMPLETED');
    expect(order('DR-2').statusId).toBe('ORDER_CREATED');
    const page = await raw(`${t.base}${String(r.headers.location)}`, { headers: { cookie } });
    expect(page.body).toContain('id="last-repair"');
    expect(page.body).toMatch(/orders-DR-1-[0-9a-f]{12}-repair-/);
    expect(t.logs().some((l) => l.msg === 'dashboard: repair')).toBe(true);
  }, 60_000);

  it('repairs every drift on "Repair all"', async () => {
    const r = await post({ all: '1' });
    expect(r.status).toBe(303);
    expect(decodeURIComponent(String(r.headers.location))).toContain('2 repaired, 0 left to a person, 0 skipped; no drift left');
    expect(['DR-1', 'DR-2', 'DR-3'].map((id) => order(id).statusId)).toEqual(['ORDER_COMPLETED', 'ORDER_COMPLETED', 'ORDER_COMPLETED']);
    const page = await raw(`${t.base}/reconcile`, { headers: { cookie } });
    expect(page.body).toContain('No drift: the service matches what was synced.');
  }, 60_000);
});
