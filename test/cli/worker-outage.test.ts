import { Queue } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { json, startServer, type TestServer } from '../client/http-server.js';
import { orderRecord, syncedOnce } from '../helpers/order-records.js';
import { runCli } from './run-cli.js';
import { SECRETS, startStack, type Stack } from './stack.js';
import { eventually, freePort, startWorkerProcess, type WorkerProcess } from './worker-process.js';

/**
 * Issue 26: a maintenance window longer than every job's retries (JOB_ATTEMPTS=3, 0.5–2 s apart; the service answers
 * 503 to everything for 20 s, probes at most 5 s apart). Two worker processes hold every stream instead of spending attempts, probe the service
 * with one read at growing intervals, and go on by themselves when it answers: every order synced exactly once, no
 * `resume`, and only a few dozen requests reach the service that is down.
 */
// Short clocks (OUTAGE_PROBE_MAX_SECONDS, OUTAGE_ALERT_SECONDS, ALERT_CHECK_SECONDS): the same story as a 60 s outage with 30 s probes.
const OUTAGE_MS = 20_000;
const ORDERS = 120;
const CONCURRENCY = 4;

let stack: Stack;
let hook: TestServer;
let workers: WorkerProcess[] = [];
let queue: Queue;

beforeEach(async () => {
  stack = await startStack({}, 'outage-cli');
  hook = await startServer((_req, res) => json(res, 200, { ok: true }));
  queue = new Queue('orders', { connection: stack.redis, prefix: stack.prefix });
});
afterEach(async () => {
  for (const w of workers) await w.stop();
  workers = [];
  await queue.close();
  await hook.close();
  await stack.close();
});

const settled = (ids: string[]) => syncedOnce(stack.sandbox.admin.state(), ids);

interface StatusJson {
  streams: Array<{ stream: string; breaker: { paused: boolean } }>;
  outage: { open: boolean; since: string | null; reason: string | null; probes: number; waiting: number; last: { waited: number } | null };
}

async function status(): Promise<StatusJson> {
  const r = await runCli(['status', '--json'], stack.env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as StatusJson;
}

describe('worker through a service outage longer than the retries (two processes)', () => {
  it('holds every stream, probes, and goes on by itself: every order synced once, no resume', async () => {
    const port = await freePort();
    const env = {
      ...stack.env,
      LOG_LEVEL: 'info',
      ORDER_POLL_SECONDS: '1',
      WORKER_CONCURRENCY: String(CONCURRENCY),
      // Paced enough that the outage starts mid-sync (most orders still to come), not so much that the orders left
      // after it take long: about 4 writes an order.
      INVENTORY_POST_PER_MINUTE: '3000',
      INVENTORY_GET_PER_MINUTE: '3000',
      JOB_ATTEMPTS: '3',
      RETRY_BASE_DELAY_MS: '500',
      RETRY_MAX_DELAY_MS: '2000',
      BREAKER_THRESHOLD: '5',
      ALERT_WEBHOOK_URL: `${hook.url}/hooks/alerts`,
      OUTAGE_PROBE_MAX_SECONDS: '5',
      // Told after 5 s, so that the test sees both the outage's alert and its end's.
      OUTAGE_ALERT_SECONDS: '5',
      // Looked for every 2 s, not 30: the alerts come within seconds of their reason.
      ALERT_CHECK_SECONDS: '2',
    };
    workers = [startWorkerProcess({ ...env, WORKER_HTTP_PORT: String(port) }), startWorkerProcess(env)];
    const [metricsUrl] = await Promise.all(workers.map((w) => w.httpUrl));
    stack.feed.append('orders', [orderRecord('WARM-1')]);
    await eventually(async () => settled(['WARM-1']), 30_000, 'the warm-up order');

    const ids = Array.from({ length: ORDERS }, (_, i) => `OUT-${i}`);
    stack.feed.append(
      'orders',
      ids.map((id) => orderRecord(id)),
    );
    // Mid-sync: some orders done, most still to come.
    await eventually(async () => stack.sandbox.admin.counters().creates.order >= 15, 30_000, 'the first orders');
    stack.sandbox.admin.setFaults([{ kind: 'status-503' }]);
    const downAt = Date.now();

    await eventually(async () => (await status()).outage.open, 20_000, 'the outage held');
    const held = await status();
    expect(held.outage.reason).toMatch(/^\[TRANSIENT\] /);
    expect(held.streams.every((s) => !s.breaker.paused)).toBe(true);
    const human = await runCli(['status'], stack.env);
    expect(human.stdout).toContain('SERVICE DOWN since');
    const ready = await fetch(`${metricsUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(JSON.stringify(await ready.json())).toContain('the service is down since');
    expect(await (await fetch(`${metricsUrl}/metrics`)).text()).toContain('isync_service_down 1');

    await new Promise((r) => setTimeout(r, Math.max(0, downAt + OUTAGE_MS - Date.now())));
    const during = stack.sandbox.admin.requests().filter((r) => r.at >= downAt);
    const lastHalf = during.filter((r) => r.at >= downAt + OUTAGE_MS / 2);
    // A few dozen (the jobs in flight at the start, the probes), at most a handful in its last half.
    expect(during.length, `requests during the outage: ${during.length}`).toBeLessThanOrEqual(60);
    expect(lastHalf.length, `requests in its last ${OUTAGE_MS / 2000} s: ${lastHalf.length}`).toBeLessThanOrEqual(5);
    expect(await queue.getJobCounts('failed')).toEqual({ failed: 0 });
    expect((await status()).outage).toMatchObject({ open: true });
    await eventually(async () => hook.seen.some((h) => h.body.includes('the service has been DOWN since')), 40_000, 'the outage alert');

    stack.sandbox.admin.setFaults([]);
    const upAt = Date.now();
    await eventually(async () => settled(ids), 120_000, 'every order synced');
    const firstWrite = stack.sandbox.admin.requests().find((r) => r.at >= upAt && r.method === 'POST' && r.status === 200);
    expect(firstWrite, 'a write after the return').toBeDefined();
    // The probes grow to 5 s apart (OUTAGE_PROBE_MAX_SECONDS): work goes on at most that long after the service returns.
    expect(firstWrite!.at - upAt).toBeLessThanOrEqual(35_000);
    await eventually(async () => (await queue.getJobCounts('completed')).completed === ORDERS + 1, 20_000, 'every job completed');
    expect(await queue.getJobCounts('failed', 'waiting', 'delayed')).toEqual({ failed: 0, waiting: 0, delayed: 0 });
    // Exactly once: one order and one shipment per record.
    expect(stack.sandbox.admin.counters().creates).toMatchObject({ order: ORDERS + 1, shipment: ORDERS + 1 });
    const after = await status();
    expect(after.outage.open).toBe(false);
    expect(after.outage.last?.waited).toBeGreaterThan(0);
    expect(after.streams.every((s) => !s.breaker.paused)).toBe(true);

    // Told twice (the outage, its end), by one process each, without a secret; the worker said the start and the end once.
    await eventually(async () => hook.seen.some((h) => h.body.includes('the service answers again since')), 40_000, 'the end alert');
    expect(hook.seen).toHaveLength(2);
    for (const h of hook.seen) for (const secret of [SECRETS.key, SECRETS.secret, SECRETS.token]) expect(h.body).not.toContain(secret);
    const lines = workers.flatMap((w) => w.stdoutLines);
    expect(lines.filter((l) => l.includes('"msg":"the service is down:'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('"msg":"the service answers again'))).toHaveLength(1);
    const figures = {
      requestsDuringOutage: during.length,
      requestsLast30s: lastHalf.length,
      returnToFirstWriteMs: firstWrite!.at - upAt,
    };
    console.log(`outage figures: ${JSON.stringify(figures)}`);
  }, 300_000);
});
