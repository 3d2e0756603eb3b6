import { afterEach, describe, expect, it } from 'vitest';
import { Queue, Worker } from 'bullmq';
import { CONTROL_QUEUE } from '../../src/queue/queues.js';
import { connect } from '../helpers/redis.js';
import { raw, startTestDashboard, type TestDashboard } from './dashboard-http.js';

/**
 * Issue 55: bull-board said "control: No workers" in amber while the worker ran. Its worker list is the CLIENT LIST
 * names BullMQ's workers set; on the control queue only a cron stream's pulls run, so no worker listens there when
 * every stream is pulled on an interval. The board shows it only while a job scheduler is on it.
 */
interface BoardQueue {
  name: string;
  hasWorkers: boolean | null;
}

let t: TestDashboard | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const board = async (): Promise<BoardQueue[]> =>
  (JSON.parse((await raw(`${t!.base}/queues/api/queues`)).body) as { queues: BoardQueue[] }).queues;

describe('the board of the dashboard', () => {
  describe('when no stream is pulled on a cron (no scheduler on the control queue)', () => {
    it('does not show the control queue, which no worker is meant to take', async () => {
      t = await startTestDashboard({ extraQueues: ['control'] });
      const names = (await board()).map((q) => q.name);
      expect(names).toContain('orders');
      expect(names).not.toContain('control');
    });
  });

  describe('when a stream is pulled on a cron', () => {
    it('shows the control queue, with no workers while none listens and with one once a worker does', async () => {
      t = await startTestDashboard({ extraQueues: ['control'] });
      const queue = new Queue(CONTROL_QUEUE, { connection: t.redis, prefix: t.prefix });
      await queue.upsertJobScheduler('stock-sync', { pattern: '0 19 * * *' }, { name: 'pull', data: { stream: 'stock-counts' } as never });
      expect((await board()).find((q) => q.name === 'control')).toMatchObject({ hasWorkers: false });
      const connection = connect();
      const worker = new Worker('control', async () => undefined, { connection, prefix: t.prefix });
      try {
        await worker.waitUntilReady();
        await expect.poll(async () => (await board()).find((q) => q.name === 'control')?.hasWorkers, { timeout: 5000 }).toBe(true);
      } finally {
        await worker.close();
        await queue.removeJobScheduler('stock-sync');
        await queue.close();
        connection.disconnect();
      }
    });
  });
});
