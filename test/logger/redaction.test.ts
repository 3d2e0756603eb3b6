import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../cli/run-cli.js';
import { SECRETS, startStack } from '../cli/stack.js';
import { eventually, freePort, startWorkerProcess } from '../cli/worker-process.js';

const PASSWORD = 'dash-pw-5e2c81f0';
const FORMS = [SECRETS.key, SECRETS.secret, SECRETS.token, PASSWORD, Buffer.from(`${SECRETS.key}:${SECRETS.secret}`).toString('base64')];

function leaks(text: string): string[] {
  return FORMS.filter((f) => text.includes(f));
}

/** Every line must be a JSON log line, and none may carry a secret; a job's lines name its job id and key. */
function checkLogLines(text: string, where: string): number {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  for (const line of lines) {
    expect(() => JSON.parse(line), `${where}: not a JSON line: ${line}`).not.toThrow();
    expect(leaks(line), `${where}: ${line}`).toEqual([]);
    const fields = JSON.parse(line) as { jobId?: string; key?: string };
    if (fields.jobId) expect(fields.key, `${where}: ${line}`).toMatch(/^R-\d$/);
  }
  return lines.length;
}

/** Every key and value under the prefix, as text. */
async function dumpPrefix(redis: Redis, prefix: string): Promise<string> {
  const out: string[] = [];
  const keys = await redis.keys(`${prefix}:*`);
  for (const key of keys) {
    out.push(key);
    const type = await redis.type(key);
    if (type === 'string') out.push((await redis.get(key)) ?? '');
    else if (type === 'hash') out.push(JSON.stringify(await redis.hgetall(key)));
    else if (type === 'list') out.push(JSON.stringify(await redis.lrange(key, 0, -1)));
    else if (type === 'set') out.push(JSON.stringify(await redis.smembers(key)));
    else if (type === 'zset') out.push(JSON.stringify(await redis.zrange(key, '0', '-1')));
    else if (type === 'stream') out.push(JSON.stringify(await redis.xrange(key, '-', '+')));
  }
  return out.join('\n');
}

const orders = [
  {
    orderId: 'R-1',
    origin: 'Main Warehouse',
    lines: [{ productId: 'MUG-BLUE', quantity: 1, unitPrice: 12.5, location: 'Main Warehouse / A-01' }],
  },
  {
    orderId: 'R-2',
    origin: 'Main Warehouse',
    lines: [{ productId: 'NO-SUCH', quantity: 1, unitPrice: 1, location: 'Main Warehouse / A-01' }],
  },
  {
    orderId: 'R-3',
    origin: 'Main Warehouse / A-01',
    lines: [{ productId: 'MUG-RED', quantity: 1, unitPrice: 1, location: 'Main Warehouse / A-01' }],
  },
];

describe('secrets', () => {
  it('never reach a log line, Redis, command output or the dashboard, even at LOG_LEVEL=debug', async () => {
    const stack = await startStack({ orders }, 'redact');
    // WAIT_FOR_REFERENCE_HOURS=0: a record of a product the service lacks fails at once (no wait: docs/runbooks/bad-records.md).
    const env = { ...stack.env, WAIT_FOR_REFERENCE_HOURS: '0', LOG_LEVEL: 'debug', DASHBOARD_USER: 'ops', DASHBOARD_PASSWORD: PASSWORD };
    try {
      // A lost connection and a 503 make the client retry and log errors with request details.
      stack.sandbox.admin.setFaults([
        { kind: 'status-503', path: '/api/shipment', times: 1 },
        { kind: 'reset', method: 'GET', path: '/api/product', times: 1 },
      ]);
      const sync = await runCli(['sync', '--once'], env);
      expect(sync.code, sync.stdout + sync.stderr).toBe(1);
      expect(checkLogLines(sync.stderr, 'sync --once stderr')).toBeGreaterThan(5);
      expect(sync.stderr).toContain('"level":20');
      expect(leaks(sync.stdout)).toEqual([]);

      // The worker logs to stdout; a new record arrives while it runs.
      stack.feed.append('orders', [{ ...orders[0], orderId: 'R-4' }]);
      const worker = startWorkerProcess({ ...env, WORKER_HTTP_PORT: String(await freePort()), ORDER_POLL_SECONDS: '1' });
      const url = await worker.httpUrl;
      await eventually(
        async () => stack.sandbox.admin.state().orders.some((o: { orderId: string }) => o.orderId === 'R-4'),
        30_000,
        'R-4 synced',
      );
      const metrics = await (await fetch(`${url}/metrics`)).text();
      const { code } = await worker.stop();
      expect(code).toBe(0);
      expect(checkLogLines(worker.stdoutLines.join('\n'), 'worker stdout')).toBeGreaterThan(5);
      expect(leaks(worker.stderr())).toEqual([]);
      expect(leaks(metrics)).toEqual([]);

      // An import with no worker running leaves its records waiting as an import batch.
      const file = join(mkdtempSync(join(tmpdir(), 'isync-redact-')), 'orders.ndjson');
      writeFileSync(file, `${JSON.stringify({ ...orders[0], orderId: 'R-5' })}\n`);
      const imported = await runCli(['import', 'orders', file], env);
      expect(imported.code, imported.stderr).toBe(0);
      expect(leaks(imported.stdout + imported.stderr)).toEqual([]);
      const batchId = JSON.parse(
        (await runCli(['jobs', 'list', '--state', 'waiting', '--stream', 'orders', '--json'], env)).stdout,
      ).jobs.find((j: { batch: unknown }) => j.batch).id as string;

      const failedId = JSON.parse((await runCli(['jobs', 'list', '--state', 'failed', '--json'], env)).stdout).jobs[0].id as string;
      for (const args of [
        ['jobs', 'show', failedId, '--json'],
        ['jobs', 'show', failedId],
        ['jobs', 'show', batchId, '--json'],
        ['status', '--json'],
        ['status'],
        ['jobs', 'list', '--state', 'all', '--json'],
      ]) {
        const r = await runCli(args, env);
        expect(r.code).toBe(0);
        expect(leaks(r.stdout + r.stderr), args.join(' ')).toEqual([]);
      }

      expect(leaks(await dumpPrefix(stack.redis, stack.prefix))).toEqual([]);

      // The dashboard: log in with the password, then no page or API answer carries a secret.
      const port = await freePort();
      const dash = spawnCli(['dashboard', '--port', String(port)], env);
      try {
        const base = `http://127.0.0.1:${port}`;
        await eventually(async () => (await fetch(`${base}/login`).catch(() => undefined))?.status === 200, 30_000, 'the dashboard');
        const bad = await fetch(`${base}/login`, {
          method: 'POST',
          body: new URLSearchParams({ user: 'ops', password: `${PASSWORD}x`, next: '/' }),
          redirect: 'manual',
        });
        expect(bad.status).toBe(401);
        expect(leaks(await bad.text())).toEqual([]);
        const login = await fetch(`${base}/login`, {
          method: 'POST',
          body: new URLSearchParams({ user: 'ops', password: PASSWORD, next: '/' }),
          redirect: 'manual',
        });
        expect(login.status).toBe(303);
        const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
        const pages = [
          '/',
          '/api/status',
          `/jobs/${failedId}`,
          `/jobs/${batchId}`,
          '/queues/',
          `/queues/api/queues?activeQueue=orders&status=failed&page=1&jobsPerPage=50`,
          `/queues/api/queues?activeQueue=orders-intake&status=waiting&page=1&jobsPerPage=50`,
          `/queues/api/queues/orders/${failedId}/logs`,
        ];
        for (const page of pages) {
          const res = await fetch(`${base}${page}`, { headers: { cookie } });
          expect(res.status, page).toBe(200);
          expect(leaks(await res.text()), page).toEqual([]);
        }
      } finally {
        dash.kill('SIGTERM');
      }
    } finally {
      await stack.close();
    }
  }, 120_000);
});
