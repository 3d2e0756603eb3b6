import { afterEach, describe, expect, it } from 'vitest';
import { runScript } from '../../src/redis/scripts.js';
import { CALL_FAILED } from '../../src/queue/hold/call-hold-scripts.js';
import { noteHeldJob } from '../../src/queue/hold/call-held-jobs.js';
import { redisKeys } from '../../src/redis/connection.js';
import { raw, startTestDashboard, type TestDashboard } from './dashboard-http.js';

/** Issue 45: the overview names a held call of the service, why, since when and the jobs that wait at it; no button. */
const USER = 'ops';
const PASSWORD = 'correct-horse-battery';

let t: TestDashboard | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('dashboard, when one call of the service is held', () => {
  it('shows the call, since when, why (escaped), the jobs that wait at it and its trials, and the JSON says it too', async () => {
    t = await startTestDashboard({ auth: { user: USER, password: PASSWORD } });
    const keys = redisKeys(t.prefix);
    const reason = '[TRANSIENT] POST /acme/api/shipment answered 503: <unavailable>';
    // Three service-down answers in a row hold the call, as the layer of a job's client counts them.
    for (let i = 0; i < 3; i++)
      await runScript(t.redis, CALL_FAILED, [1, keys.callHolds(), 'shipment-create', Date.now(), 3, reason, 'TRANSIENT', 2000, 30_000, '']);
    await noteHeldJob(t.redis, keys, 'shipment-create', 'orders', 'orders-W-1-abc');
    await noteHeldJob(t.redis, keys, 'shipment-create', 'orders', 'orders-W-2-abc');
    const cookie = await t.login(USER, PASSWORD);
    const r = await raw(`${t.base}/`, { headers: { cookie } });
    expect(r.status).toBe(200);
    expect(r.body).toContain('data-call="shipment-create"');
    expect(r.body).toContain('<strong>shipment create is held</strong>');
    expect(r.body).toContain('answered 503: &lt;unavailable>');
    expect(r.body).not.toContain('<unavailable>');
    expect(r.body).toContain('2 jobs wait at it (orders 2). Only the jobs whose next step is shipment create wait there');
    expect(r.body).not.toContain('data-call="variance"');
    const status = JSON.parse((await raw(`${t.base}/api/status`, { headers: { cookie } })).body) as {
      calls: Array<{ call: string; held: boolean; waiting: Record<string, number>; failures: number }>;
    };
    expect(status.calls.find((c) => c.call === 'shipment-create')).toMatchObject({ held: true, failures: 3, waiting: { orders: 2 } });
    expect(status.calls.find((c) => c.call === 'variance')).toMatchObject({ held: false });
  });
});
