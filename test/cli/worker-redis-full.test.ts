import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../../src/redis-server.js';
import { createRedis } from '../../src/redis.js';
import { json, startServer, type TestServer } from '../client/http-server.js';
import { orderRecord, orderState } from '../helpers/order-records.js';
import { startStack, type Stack } from './stack.js';
import { eventually, freePort, startWorkerProcess, type WorkerProcess } from './worker-process.js';

/**
 * Issue 26: a worker against a Redis whose maxmemory is reached (noeviction: every write answered OOM, as a full
 * managed Redis does), raised again 20 s later. Its own redis-server: the test changes its maxmemory.
 */
const HOLD_MS = 20_000;
const BEFORE = 5;
const DURING = 10;

/** The child's stdout lines as JSON, with when the test read them. */
interface Line {
  at: number;
  level: number;
  msg: string;
  reason?: string;
}

describe('worker against a full Redis', () => {
  let server: RedisServer;
  let redis: Redis;
  let stack: Stack;
  let hook: TestServer;
  let worker: WorkerProcess | undefined;
  const lines: Line[] = [];

  beforeAll(async () => {
    server = await startRedisServer({ args: ['--maxmemory-policy', 'noeviction'] });
    redis = createRedis(server.url);
    stack = await startStack({}, 'redis-full');
    hook = await startServer((_req, res) => json(res, 200, { ok: true }));
  }, 30_000);
  afterAll(async () => {
    await worker?.stop();
    await hook?.close();
    await stack?.close();
    redis?.disconnect();
    await server?.stop();
  });

  const settled = (id: string) => {
    const { orders, shipments } = orderState(stack.sandbox.admin.state(), id);
    return orders.length === 1 && orders[0]!.statusId === 'ORDER_COMPLETED' && shipments[0]?.statusId === 'SHIPMENT_SHIPPED';
  };
  const readyz = async (url: string) => {
    const res = await fetch(`${url}/readyz`);
    return { status: res.status, body: (await res.json()) as { checks: Array<{ name: string; ok: boolean; detail?: string }> } };
  };
  /** Every stdout line read so far, parsed; lines are stamped with the time they were first seen. */
  const readLines = () => {
    for (const l of worker!.stdoutLines.slice(lines.length)) {
      const parsed = l.startsWith('{') ? (JSON.parse(l) as Omit<Line, 'at'>) : { level: 0, msg: l };
      lines.push({ ...parsed, at: Date.now() });
    }
    return lines;
  };

  it('logs a few lines per reason, says so on /readyz, alerts once, and goes on within 10 s of the raise, nothing lost', async () => {
    const port = await freePort();
    worker = startWorkerProcess({
      ...stack.env,
      REDIS_URL: server.url,
      LOG_LEVEL: 'info',
      ORDER_POLL_SECONDS: '1',
      WORKER_HTTP_PORT: String(port),
      ALERT_WEBHOOK_URL: `${hook.url}/hooks/alerts`,
      ALERT_REDIS_REFUSED_SECONDS: '10',
    });
    const url = await worker.httpUrl;
    const reader = setInterval(readLines, 50);
    const ids = (p: string, n: number) => Array.from({ length: n }, (_, i) => `${p}-${i}`);
    stack.feed.append(
      'orders',
      ids('OOM-A', BEFORE).map((id) => orderRecord(id)),
    );
    await eventually(async () => ids('OOM-A', BEFORE).every(settled), 30_000, 'the orders before');

    // Full: maxmemory reached. A little below what is used, so that the keys the worker frees (locks, trimmed jobs)
    // never bring it under again: every write is refused (OOM), as by a full managed Redis.
    const used = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);
    await redis.config('SET', 'maxmemory', String(used - 256 * 1024));
    await eventually(
      async () => (await redis.set('isync-fill', 'x'.repeat(4096)).catch((e: Error) => e.message)) !== 'OK',
      10_000,
      'writes refused',
    );
    expect(await redis.set('probe', '1').catch((e: Error) => e.message)).toMatch(/^OOM/);
    const fullAt = Date.now();
    readLines();
    const linesBefore = lines.length;
    stack.feed.append(
      'orders',
      ids('OOM-B', DURING).map((id) => orderRecord(id)),
    );
    await eventually(async () => (await readyz(url)).status === 503, 10_000, '/readyz to say not ready').catch(async (err: unknown) => {
      console.log(JSON.stringify(await readyz(url)), worker!.stdoutLines.slice(-20).join('\n'));
      throw err;
    });
    const ready = await readyz(url);
    expect(ready.body.checks).toContainEqual({
      name: 'redis-writes',
      ok: false,
      detail: expect.stringMatching(/Redis refuses writes since .*: OOM command not allowed/),
    });
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/^isync_redis_writes_refused_seconds [1-9]\d*$/m);
    await new Promise((r) => setTimeout(r, Math.max(0, HOLD_MS - (Date.now() - fullAt))));
    const synced = stack.sandbox.admin.counters().creates.order;
    expect(synced).toBe(BEFORE);

    // Raised: work goes on.
    await redis.config('SET', 'maxmemory', '0');
    const raisedAt = Date.now();
    await eventually(async () => ids('OOM-B', DURING).some(settled), 20_000, 'an order synced after the raise');
    const firstAfterMs = Date.now() - raisedAt;
    await eventually(async () => ids('OOM-B', DURING).every(settled), 30_000, 'every order synced after the raise');
    await eventually(async () => (await readyz(url)).status === 200, 10_000, '/readyz ready again');

    // Nothing lost, nothing twice: each order created once, completed, with one shipment shipped.
    for (const id of [...ids('OOM-A', BEFORE), ...ids('OOM-B', DURING)]) {
      const { orders, shipments } = orderState(stack.sandbox.admin.state(), id);
      expect(orders, id).toHaveLength(1);
      expect(shipments, id).toHaveLength(1);
    }
    expect(stack.sandbox.admin.counters().creates.order).toBe(BEFORE + DURING);

    // A few lines per reason while full, not thousands a second.
    const during = readLines()
      .slice(linesBefore)
      .filter((l) => l.at <= raisedAt);
    const byReason = new Map<string, number>();
    for (const l of during) byReason.set(l.reason ?? l.msg, (byReason.get(l.reason ?? l.msg) ?? 0) + 1);
    const perMinute = Math.round((during.length * 60_000) / (raisedAt - fullAt));
    console.log(
      `full Redis: ${during.length} lines in ${Math.round((raisedAt - fullAt) / 1000)} s (${perMinute} a minute), ` +
        `first order synced ${firstAfterMs} ms after the raise; by reason: ${JSON.stringify(Object.fromEntries(byReason))}`,
    );
    for (const [reason, n] of byReason) expect(n, reason).toBeLessThanOrEqual(2);
    expect(during.length).toBeLessThan(30);
    expect(firstAfterMs).toBeLessThan(10_000);
    // One alert, about Redis refusing writes.
    const alerts = hook.seen.map((r) => (JSON.parse(r.body) as { text: string }).text).filter((t) => t.includes('refused writes'));
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatch(/Redis has refused writes for \d+ s: OOM command not allowed/);
    clearInterval(reader);
    expect((await worker.stop()).code).toBe(0);
    worker = undefined;
  }, 120_000);
});
