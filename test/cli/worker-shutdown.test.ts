import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { startStack } from './stack.js';
import { eventually, startWorkerProcess } from './worker-process.js';

const orders = Array.from({ length: 6 }, (_, i) => ({
  orderId: `SD-${i + 1}`,
  origin: 'Main Warehouse',
  lines: [{ productId: 'MUG-RED', quantity: 1, unitPrice: 12.5, location: 'Main Warehouse / A-01' }],
}));

describe('worker shutdown', () => {
  describe('when SIGTERM arrives during active jobs', () => {
    it('finishes them within the grace period, exits 0, and leaves nothing locked or lost', async () => {
      const stack = await startStack({ orders }, 'shutdown');
      const queue = new Queue('orders', { connection: stack.redis, prefix: stack.prefix });
      try {
        // Every API answer takes 700 ms: an order (4 writes) runs for a few seconds.
        stack.sandbox.admin.setLatency({ ms: 700 });
        const worker = startWorkerProcess({
          ...stack.env,
          WORKER_CONCURRENCY: '2',
          SHUTDOWN_GRACE_SECONDS: '25',
          ORDER_POLL_SECONDS: '1',
          LOG_LEVEL: 'info',
        });
        await worker.httpUrl;
        await eventually(async () => (await queue.getActiveCount()) === 2, 30_000, 'two active jobs');
        const active = (await queue.getActive()).map((j) => j.id!);

        const { code, ms } = await worker.stop('SIGTERM');
        expect(code).toBe(0);
        expect(ms).toBeLessThan(25_000);
        const logs = worker.stdoutLines.filter(Boolean).map((l) => JSON.parse(l) as { msg: string });
        expect(logs.some((l) => l.msg.startsWith('stopping: no new jobs'))).toBe(true);
        expect(logs.at(-1)?.msg).toBe('worker stopped');

        // The jobs that were running finished; none is left active or locked; the others wait their turn.
        for (const id of active) expect(await queue.getJobState(id)).toBe('completed');
        expect(await queue.getActiveCount()).toBe(0);
        const counts = await queue.getJobCounts('completed', 'waiting', 'delayed', 'failed', 'prioritized');
        expect(counts.failed).toBe(0);
        expect((counts.completed ?? 0) + (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0)).toBe(6);
        const locks = [...(await stack.redis.keys(`${stack.prefix}:orders:*:lock`)), ...(await stack.redis.keys(`${stack.prefix}:lock:*`))];
        expect(locks).toEqual([]);

        // Nothing lost: a later run syncs the rest, each order exactly once.
        stack.sandbox.admin.setLatency({ ms: 0 });
        const rest = await runCli(['sync', '--once', '--stream', 'orders'], stack.env);
        expect(rest.code).toBe(0);
        const created = stack.sandbox.admin
          .state()
          .orders.map((o: { orderId: string }) => o.orderId)
          .sort();
        expect(created).toEqual(orders.map((o) => o.orderId).sort());
        expect(stack.sandbox.admin.counters().creates.order).toBe(6);
      } finally {
        await queue.close();
        await stack.close();
      }
    }, 90_000);
  });

  describe('when an active job outlives the grace period', () => {
    it('stops once the grace period is over, leaving the job active for its lock to expire', async () => {
      const stack = await startStack({ orders: orders.slice(0, 1) }, 'shutdown-grace');
      const queue = new Queue('orders', { connection: stack.redis, prefix: stack.prefix });
      try {
        // Every API answer takes 4 s: the order (its catalog read and 4 writes) runs for about 20 s.
        stack.sandbox.admin.setLatency({ ms: 4_000 });
        const worker = startWorkerProcess({ ...stack.env, SHUTDOWN_GRACE_SECONDS: '1', ORDER_POLL_SECONDS: '1', LOG_LEVEL: 'info' });
        await worker.httpUrl;
        await eventually(async () => (await queue.getActiveCount()) === 1, 30_000, 'the job active');

        const { code, ms } = await worker.stop('SIGTERM');
        expect(code).toBe(0);
        // The grace period (1 s) and the closing, not the job's 20 s.
        expect(ms).toBeLessThan(8_000);
        const logs = worker.stdoutLines.filter(Boolean).map((l) => JSON.parse(l) as { msg: string; level: number });
        expect(logs.some((l) => l.msg.startsWith('active jobs did not finish within 1000 ms'))).toBe(true);
        // Stopped cleanly: said so, and nothing went wrong after (a read still in flight may still say it answered).
        const stoppedAt = logs.findIndex((l) => l.msg === 'worker stopped');
        expect(stoppedAt).toBeGreaterThan(-1);
        expect(logs.slice(stoppedAt + 1).filter((l) => l.level >= 40)).toEqual([]);
        expect(await queue.getActiveCount()).toBe(1);
      } finally {
        await queue.close();
        await stack.close();
      }
    }, 60_000);
  });
});
