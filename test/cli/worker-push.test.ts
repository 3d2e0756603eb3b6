import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderRecord, syncedOnce } from '../helpers/order-records.js';
import { newSecret, push } from '../ingest/push-sender.js';
import { cliInProcess } from './cli-in-process.js';
import { runCli } from './run-cli.js';
import { startStack, type Stack } from './stack.js';
import { eventually, freePort, startWorkerProcess, type WorkerProcess } from './worker-process.js';

const SECRET = newSecret();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A sender as webhook providers are: each delivery keeps its webhook-id, and is sent again until a 2xx answers it
 * (a refused connection, a reset or a 5xx is retried). Answers the ids acknowledged, in order.
 */
function retryingSender(url: () => string, deliveries: Array<{ id: string; body: unknown }>, inFlight = 4, paceMs = 100) {
  const acknowledged: string[] = [];
  const tries = { failed: 0 };
  let next = 0;
  const lane = async () => {
    while (next < deliveries.length) {
      const d = deliveries[next++]!;
      for (;;) {
        const a = await push(url(), 'orders', d.body, { secrets: [SECRET], id: d.id }).catch(() => undefined);
        if (a && a.status >= 200 && a.status < 300) break;
        tries.failed++;
        await sleep(100);
      }
      acknowledged.push(d.id);
      await sleep(paceMs);
    }
  };
  const done = Promise.all(Array.from({ length: inFlight }, lane));
  return { acknowledged, tries, done };
}

/** `worker` with INGEST_PORT and no UPSTREAM_URL: it takes pushes only, and processes them at once. */
describe('worker with a push receiver', () => {
  let stack: Stack;
  let env: Record<string, string>;
  let ingestUrl: string;
  let worker: WorkerProcess | undefined;
  let queue: Queue;

  beforeAll(async () => {
    stack = await startStack({}, 'push');
    const { UPSTREAM_URL: _url, UPSTREAM_TOKEN: _token, ...rest } = stack.env;
    const port = await freePort();
    // WAIT_FOR_REFERENCE_HOURS=0: a record of a product the service lacks fails at once (no wait: docs/runbooks/bad-records.md).
    env = { ...rest, INGEST_PORT: String(port), INGEST_SECRET: SECRET, LOG_LEVEL: 'info', WAIT_FOR_REFERENCE_HOURS: '0' };
    ingestUrl = `http://127.0.0.1:${port}`;
    queue = new Queue('orders', { connection: stack.redis, prefix: stack.prefix });
  });
  afterAll(async () => {
    await worker?.stop('SIGKILL');
    await queue?.close();
    await stack?.close();
  });

  describe('when it is SIGKILLed while deliveries arrive', () => {
    it('syncs every acknowledged record exactly once, the sender retrying the unacknowledged ones', async () => {
      worker = startWorkerProcess(env);
      await worker.httpUrl;
      expect(worker.stdoutLines.join('\n')).toContain('no UPSTREAM_URL: nothing is pulled');
      const ids = Array.from({ length: 60 }, (_, i) => `KILL-${i + 1}`);
      const sender = retryingSender(
        () => ingestUrl,
        ids.map((id) => ({ id: `msg_${id}`, body: orderRecord(id) })),
      );
      await eventually(async () => sender.acknowledged.length >= 10, 30_000, 'ten deliveries acknowledged');
      // Jobs running at a kill are taken back once their lock expires (30 s, BullMQ's part): held here, so the test
      // is about the deliveries in flight, which keep arriving.
      await queue.pause();
      await eventually(async () => (await queue.getActiveCount()) === 0, 30_000, 'no active job');
      await worker.stop('SIGKILL');
      const beforeKill = sender.acknowledged.length;
      await sleep(300);
      worker = startWorkerProcess(env);
      await worker.httpUrl;
      await queue.resume();
      await sender.done;
      expect(sender.acknowledged.length).toBe(ids.length);
      // The kill landed while deliveries arrived: some were cut or refused, and sent again.
      expect(beforeKill).toBeLessThan(ids.length);
      expect(sender.tries.failed).toBeGreaterThan(0);
      await eventually(async () => syncedOnce(stack.sandbox.admin.state(), ids), 45_000, 'every order synced');
      expect(stack.sandbox.admin.counters().creates.order).toBe(ids.length);
    }, 90_000);
  });

  describe('when a pushed record is not valid', () => {
    it('is accepted, and fails as a bad record that `jobs list --state failed` shows', async () => {
      const a = await push(ingestUrl, 'orders', { orderId: 'PUSH-BAD-CLI', origin: 'Main Warehouse', lines: [] }, { secrets: [SECRET] });
      expect(a.status).toBe(202);
      await eventually(async () => (await queue.getFailedCount()) > 0, 20_000, 'the bad record failed');
      const r = await runCli(['jobs', 'list', '--state', 'failed'], env);
      expect(r.code).toBe(0);
      const line = r.stdout.split('\n').find((l) => l.includes('PUSH-BAD-CLI'));
      expect(line).toMatch(/orders\s+failed\s+PUSH-BAD-CLI\s.*\[BAD_RECORD\] record PUSH-BAD-CLI: lines/);
    }, 60_000);
  });

  describe('when status is asked while it runs', () => {
    it('says the worker takes pushes and pulls nothing, not that the feed never caught up', async () => {
      const r = await cliInProcess(['status'], env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toContain('never caught up');
      expect(r.stdout).not.toContain('none yet');
      expect(r.stdout).toMatch(/^orders\s.*\snot pulled yet\s*$/m);
      // The worker SIGKILLed above is counted until its word is a minute old: one or two.
      expect(r.stdout).toMatch(
        /none: [12] workers? runs? without UPSTREAM_URL, pulling nothing; taking pushes at (\S+) and imported records/,
      );
      expect(r.stdout).toContain(`taking pushes at ${ingestUrl}/ingest/{stream} and imported records`);
      const json = JSON.parse((await cliInProcess(['status', '--json'], env)).stdout);
      expect(json.workers).toMatchObject({ pulling: 0, receivers: [ingestUrl] });
      expect(json.workers.running).toBeGreaterThanOrEqual(1);
    }, 60_000);
  });
});
