import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { readBreaker, recordRefusal } from '../../src/queue/hold/refusal-state.js';
import { redisKeys } from '../../src/redis/connection.js';
import { form, raw, startTestDashboard, type TestDashboard } from './dashboard-http.js';

/** Issue 20: the overview shows a stream its breaker paused, and its button resumes it. */
const USER = 'ops';
const PASSWORD = 'correct-horse-battery';

let t: TestDashboard | undefined;
let queue: Queue | undefined;
afterEach(async () => {
  await queue?.close();
  await t?.close();
  t = queue = undefined;
});

async function pausedOrders(): Promise<{ t: TestDashboard; cookie: string; queue: Queue }> {
  t = await startTestDashboard({ auth: { user: USER, password: PASSWORD } });
  queue = new Queue('orders', { connection: t.redis, prefix: t.prefix });
  await queue.add('o', { record: { orderId: 'W-1' }, source: 'feed' }, { jobId: 'orders-W-1-abc' });
  const reason = '[UNAUTHORIZED] POST /acme/api/order answered 401: <the key was revoked>';
  await recordRefusal(t.redis, redisKeys(t.prefix), 'orders', { threshold: 1, code: 'UNAUTHORIZED', reason, jobId: 'orders-W-1-abc' });
  await queue.pause();
  return { t, cookie: await t.login(USER, PASSWORD), queue };
}

describe('dashboard, when a stream is paused by its breaker', () => {
  it('shows since when, why (escaped) and how many jobs wait, with a Resume button', async () => {
    const { t, cookie } = await pausedOrders();
    const r = await raw(`${t.base}/`, { headers: { cookie } });
    expect(r.status).toBe(200);
    expect(r.body).toContain('data-paused="orders"');
    expect(r.body).toContain('<strong>orders is paused</strong>');
    // The renderer escapes < (and & and "): no tag can start; > alone is plain text.
    expect(r.body).toContain('answered 401: &lt;the key was revoked>');
    expect(r.body).not.toContain('<the key was revoked>');
    expect(r.body).toContain('1 job waits, none lost');
    expect(r.body).toContain('<form class="inline" method="post" action="/resume">');
    expect(r.body).not.toContain('data-paused="boms"');
    const status = JSON.parse((await raw(`${t.base}/api/status`, { headers: { cookie } })).body) as {
      streams: Array<{ stream: string; breaker: { paused: boolean; waiting: number } }>;
    };
    expect(status.streams.find((s) => s.stream === 'orders')!.breaker).toMatchObject({ paused: true, waiting: 1 });
  });

  it('resumes it on the button, and only from the dashboard itself with a session', async () => {
    const { t, cookie, queue } = await pausedOrders();
    const post = (headers: Record<string, string>) =>
      raw(`${t.base}/resume`, { method: 'POST', ...form({ stream: 'orders' }), headers: { ...form({}).headers, ...headers } });
    expect((await post({ cookie, origin: 'http://evil.example' })).status).toBe(403);
    expect([302, 303, 401]).toContain((await post({})).status);
    expect(await queue.isPaused()).toBe(true);
    expect((await readBreaker(t.redis, redisKeys(t.prefix), 'orders')).paused).toBe(true);
    expect(
      (
        await raw(`${t.base}/resume`, {
          method: 'POST',
          ...form({ stream: 'nope' }),
          headers: { ...form({}).headers, cookie, origin: t.base },
        })
      ).status,
    ).toBe(400);

    const r = await post({ cookie, origin: t.base });
    expect(r.status).toBe(303);
    expect(decodeURIComponent(r.headers.location as string)).toContain('Resumed orders: 1 job run again');
    expect(await queue.isPaused()).toBe(false);
    expect((await readBreaker(t.redis, redisKeys(t.prefix), 'orders')).paused).toBe(false);
    expect(t.logs().some((l) => l.msg === 'dashboard: resume of a stream')).toBe(true);
  });
});
