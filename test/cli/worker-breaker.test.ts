import { Queue } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FaultRule } from '../../src/sandbox/sandbox-options.js';
import { json, startServer, type TestServer } from '../client/http-server.js';
import { orderRecord, syncedOnce } from '../helpers/order-records.js';
import { runCli } from './run-cli.js';
import { SECRETS, startStack, type Stack } from './stack.js';
import { eventually, freePort, startWorkerProcess, type WorkerProcess } from './worker-process.js';

/**
 * Issue 20: when the account refuses every job (a revoked key, a forbidden ship), two worker processes pause the
 * stream after BREAKER_THRESHOLD refusals in a row, say so once, and `resume` alone brings every order to synced.
 */
const THRESHOLD = 5;
const CONCURRENCY = 3;
const WORKERS = 2;
const ORDERS = 20;

let stack: Stack;
let hook: TestServer;
let workers: WorkerProcess[] = [];
let queue: Queue;

beforeEach(async () => {
  stack = await startStack({}, 'breaker-cli');
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

async function startWorkers(): Promise<string> {
  const port = await freePort();
  const env = {
    ...stack.env,
    LOG_LEVEL: 'info',
    ORDER_POLL_SECONDS: '1',
    WORKER_CONCURRENCY: String(CONCURRENCY),
    BREAKER_THRESHOLD: String(THRESHOLD),
    ALERT_WEBHOOK_URL: `${hook.url}/hooks/alerts`,
  };
  workers = [startWorkerProcess({ ...env, WORKER_HTTP_PORT: String(port) }), startWorkerProcess(env)];
  const [url] = await Promise.all(workers.map((w) => w.httpUrl));
  return url!;
}

const settled = (ids: string[]) => syncedOnce(stack.sandbox.admin.state(), ids);

async function status(): Promise<{ streams: Array<{ stream: string; breaker: Record<string, unknown> }> }> {
  const r = await runCli(['status', '--json'], stack.env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/** Syncs two orders (the catalog is read while the account still answers), then refuses as `fault` says. */
async function refuseMidRun(fault: FaultRule, refusedStatus: number): Promise<{ metricsUrl: string; ids: string[]; refusedAt: number }> {
  const metricsUrl = await startWorkers();
  stack.feed.append('orders', [orderRecord('WARM-1'), orderRecord('WARM-2')]);
  await eventually(async () => settled(['WARM-1', 'WARM-2']), 30_000, 'the warm-up orders');
  stack.sandbox.admin.setFaults([fault]);
  const from = stack.sandbox.admin.requests().length;
  const ids = Array.from({ length: ORDERS }, (_, i) => `BRK-${i}`);
  stack.feed.append(
    'orders',
    ids.map((id) => orderRecord(id)),
  );
  await eventually(async () => (await status()).streams.find((s) => s.stream === 'orders')!.breaker.paused === true, 30_000, 'the pause');
  // Jobs in flight at the pause finish their one request; then nothing at all reaches the service.
  await new Promise((r) => setTimeout(r, 1_500));
  const after = stack.sandbox.admin.requests().slice(from);
  const refused = after.filter((r) => r.status === refusedStatus).length;
  expect(refused).toBeGreaterThanOrEqual(THRESHOLD);
  expect(refused).toBeLessThanOrEqual(THRESHOLD + WORKERS * CONCURRENCY);
  const quiet = stack.sandbox.admin.requests().length;
  await new Promise((r) => setTimeout(r, 2_500));
  expect(stack.sandbox.admin.requests().length, 'no request while paused').toBe(quiet);
  return { metricsUrl, ids, refusedAt: refused };
}

/** What every surface says of the pause, then the service recovers and `resume` alone finishes every order. */
async function expectPausedThenResume(ids: string[], metricsUrl: string, code: string): Promise<void> {
  const orders = (await status()).streams.find((s) => s.stream === 'orders')!;
  expect(orders.breaker).toMatchObject({ paused: true, code, refusals: THRESHOLD });
  expect(orders.breaker.since).toEqual(expect.any(String));
  expect(String(orders.breaker.reason)).toMatch(new RegExp(`^\\[${code}\\] POST /`));
  expect(orders.breaker.waiting).toBeGreaterThan(0);
  const human = await runCli(['status'], stack.env);
  expect(human.stdout).toContain('PAUSED: orders since');
  expect(await queue.getJobCounts('failed')).toEqual({ failed: 0 });

  await eventually(async () => hook.seen.length > 0, 20_000, 'the alert');
  const ready = await fetch(`${metricsUrl}/readyz`);
  expect(ready.status).toBe(200);
  expect(JSON.stringify(await ready.json())).toContain('orders paused since');
  const metrics = await (await fetch(`${metricsUrl}/metrics`)).text();
  expect(metrics).toContain('isync_stream_paused{stream="orders"} 1');
  expect(metrics).toContain('isync_stream_paused{stream="boms"} 0');

  // The account answers again: nothing moves by itself (resume is the operator's), then `resume` alone.
  stack.sandbox.admin.setFaults([]);
  await new Promise((r) => setTimeout(r, 1_500));
  expect(settled(ids)).toBe(false);
  const resumed = await runCli(['resume', '--stream', 'orders'], stack.env);
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stdout).toMatch(/^orders: resumed \(paused since .+\); \d+ jobs? run again from their progress\n$/);
  await eventually(async () => settled(ids), 60_000, 'every order synced once');
  await eventually(async () => (await queue.getJobCounts('completed')).completed === ORDERS + 2, 20_000, 'every job completed');
  expect(await queue.getJobCounts('failed', 'waiting', 'delayed')).toEqual({ failed: 0, waiting: 0, delayed: 0 });
  // Exactly once: one order and one shipment per record (settled() counts them), nothing else created.
  expect(stack.sandbox.admin.counters().creates).toMatchObject({ order: ORDERS + 2, shipment: ORDERS + 2 });

  // Told once, by one process, without a secret.
  expect(hook.seen).toHaveLength(1);
  const text = (JSON.parse(hook.seen[0]!.body) as { text: string }).text;
  expect(text).toContain(`the orders stream is PAUSED since`);
  expect(text).toContain('inventory-sync resume --stream orders');
  for (const secret of [SECRETS.key, SECRETS.secret, SECRETS.token]) expect(hook.seen[0]!.body).not.toContain(secret);
  const pausedLines = workers.flatMap((w) => w.stdoutLines).filter((l) => l.includes('"msg":"stream orders paused:'));
  expect(pausedLines).toHaveLength(1);
}

describe('worker circuit breaker (two processes)', () => {
  describe('when the API key is revoked mid-run', () => {
    it('pauses the stream after the threshold, says so once, and resume syncs every order once', async () => {
      const { metricsUrl, ids } = await refuseMidRun({ kind: 'status-401' }, 401);
      await expectPausedThenResume(ids, metricsUrl, 'UNAUTHORIZED');
    }, 180_000);
  });

  describe('when every ship answers 403', () => {
    it('pauses with the orders created, and resume ships and completes each from its progress', async () => {
      const { metricsUrl, ids } = await refuseMidRun({ kind: 'status-403', method: 'POST', path: '/api/shipment/[^/]+$' }, 403);
      await expectPausedThenResume(ids, metricsUrl, 'FORBIDDEN');
    }, 180_000);
  });
});
