import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { intakeQueueName } from '../../src/queue/intake-queue.js';
import { startStack } from '../cli/stack.js';
import { eventually, freePort, startWorkerProcess } from '../cli/worker-process.js';

const order = (n: number, productId = 'MUG-BLUE') => ({
  orderId: `M-${n}`,
  origin: 'Main Warehouse',
  lines: [{ productId, quantity: 1, unitPrice: 12.5, location: 'Main Warehouse / A-01' }],
});

/** The value of one sample line, e.g. `isync_jobs_total{stream="orders",outcome="synced"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics', () => {
  describe('after the worker has run the feed', () => {
    it('counts jobs by outcome, calls by class and status, 429s, budget waits, queue depth, import batches and feed lag', async () => {
      const stack = await startStack({ orders: [order(1), order(2), order(3), order(4, 'NO-SUCH')] }, 'metrics');
      const queue = new Queue('orders', { connection: stack.redis, prefix: stack.prefix });
      // An import batch whose data is no batch: the worker's intake worker fails it, and it stays failed.
      const intake = new Queue(intakeQueueName('stock-counts'), { connection: stack.redis, prefix: stack.prefix });
      await intake.add(
        'stock-counts',
        { stream: 'stock-counts', source: 'import', firstLine: 1, lastLine: 1, items: 'nope' },
        { jobId: 'intake-stock-counts-0123456789ab', attempts: 1 },
      );
      // The service allows 2 writes a second: 12 order writes meet a 429 or more. The first orders' writes go together,
      // before any answer has told the client the budget (at 6 a second a loaded machine sent too slowly to meet one).
      stack.sandbox.admin.setBudgets({ post: { limit: 2, windowMs: 1000 } });
      const port = await freePort();
      const worker = startWorkerProcess({ ...stack.env, WORKER_HTTP_PORT: String(port), ORDER_POLL_SECONDS: '1', LOG_LEVEL: 'info' });
      try {
        const url = await worker.httpUrl;
        expect(url).toBe(`http://127.0.0.1:${port}`);
        const done = async () =>
          (await queue.getCompletedCount()) === 3 &&
          (await stack.redis.hlen(`${stack.prefix}:waiting:orders`)) === 1 &&
          (await intake.getFailedCount()) === 1;
        // The order of a product the service lacks waits for it (src/queue/wait/), not failed.
        await eventually(done, 45_000, 'the orders to be done or waiting and the bad batch failed').catch(async (err: Error) => {
          throw new Error(
            `${err.message}: ${JSON.stringify(await queue.getJobCounts())} ${JSON.stringify(await intake.getJobCounts())}\n${worker.stdoutLines.join('\n')}\n${worker.stderr()}`,
          );
        });

        const res = await fetch(`${url}/metrics`);
        expect(res.status).toBe(200);
        const text = await res.text();
        expect(sample(text, 'isync_jobs_total{stream="orders",outcome="synced"}')).toBe(3);
        expect(sample(text, 'isync_jobs_total{stream="orders",outcome="failed"}')).toBe(0);
        expect(sample(text, 'isync_api_calls_total{class="post",status="200"}')).toBe(12);
        expect(sample(text, 'isync_api_calls_total{class="collection",status="200"}')).toBeGreaterThanOrEqual(2);
        const limited = sample(text, 'isync_api_calls_total{class="post",status="429"}') ?? 0;
        expect(limited).toBeGreaterThan(0);
        expect(sample(text, 'isync_rate_limited_total{class="post"}')).toBe(limited);
        expect(sample(text, 'isync_api_call_duration_seconds_count{class="post"}')).toBe(12 + limited);
        expect(sample(text, 'isync_budget_wait_seconds_count{class="post"}')).toBe(12 + limited);
        expect(sample(text, 'isync_job_duration_seconds_count{stream="orders",outcome="synced"}')).toBe(3);
        expect(sample(text, 'isync_queue_jobs{stream="orders",state="completed"}')).toBe(3);
        expect(sample(text, 'isync_queue_jobs{stream="orders",state="failed"}')).toBe(0);
        expect(sample(text, 'isync_queue_jobs{stream="orders",state="delayed"}')).toBe(1);
        expect(sample(text, 'isync_waiting_records{stream="orders"}')).toBe(1);
        expect(sample(text, 'isync_waiting_records{stream="boms"}')).toBe(0);
        expect(sample(text, 'isync_waiting_references')).toBe(1);
        expect(sample(text, 'isync_waiting_oldest_seconds')).toBeGreaterThan(0);
        expect(sample(text, 'isync_queue_jobs{stream="orders",state="waiting"}')).toBe(0);
        // Import batches have a gauge of their own, with the same stream label.
        expect(sample(text, 'isync_intake_batches{stream="stock-counts",state="failed"}')).toBe(1);
        expect(sample(text, 'isync_intake_batches{stream="stock-counts",state="waiting"}')).toBe(0);
        expect(sample(text, 'isync_intake_batches{stream="orders",state="failed"}')).toBe(0);
        expect(text).not.toContain('isync_queue_jobs{stream="stock-counts-intake"');
        const lag = sample(text, 'isync_feed_lag_seconds{stream="orders"}');
        expect(lag).toBeGreaterThanOrEqual(0);
        expect(lag).toBeLessThan(30);

        expect((await fetch(`${url}/healthz`)).status).toBe(200);
        const ready = await fetch(`${url}/readyz`);
        expect(ready.status).toBe(200);
        expect(await ready.json()).toMatchObject({
          status: 'ready',
          checks: [
            { name: 'redis', ok: true },
            { name: 'redis-writes', ok: true },
            { name: 'workers', ok: true },
            { name: 'streams', ok: true },
          ],
        });
      } finally {
        const { code } = await worker.stop('SIGINT');
        await queue.close();
        await intake.close();
        await stack.close();
        expect(code).toBe(0);
      }
    }, 90_000);
  });
});
