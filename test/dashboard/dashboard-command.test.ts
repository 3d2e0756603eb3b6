import { describe, expect, it } from 'vitest';
import { redisUrl, uniquePrefix } from '../helpers/redis.js';
import { baseEnv, collect, runCli, spawnCli } from '../cli/run-cli.js';
import { eventually, freePort } from '../cli/worker-process.js';

const env = () => ({ ...baseEnv(), REDIS_URL: redisUrl(), QUEUE_PREFIX: uniquePrefix('dash') });

describe.concurrent('the dashboard command', () => {
  it('refuses to start without DASHBOARD_USER and DASHBOARD_PASSWORD, with exit 2', async () => {
    const r = await runCli(['dashboard', '--port', '0'], env());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('DASHBOARD_USER and DASHBOARD_PASSWORD are required for the dashboard (or --no-auth on 127.0.0.1)');
  });

  it('refuses --no-auth on an address other machines can reach, with exit 2', async () => {
    const r = await runCli(['dashboard', '--no-auth', '--host', '0.0.0.0', '--port', '0'], env());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--no-auth is allowed on a loopback host only, not 0.0.0.0');
  });

  it('keeps pages and the API behind the login, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const child = spawnCli(['dashboard', '--port', String(port)], { ...env(), DASHBOARD_USER: 'ops', DASHBOARD_PASSWORD: 'pw-123456' });
    const done = collect(child);
    const base = `http://127.0.0.1:${port}`;
    await eventually(async () => (await fetch(`${base}/login`).catch(() => undefined))?.status === 200, 30_000, 'the dashboard');
    const page = await fetch(`${base}/`, { redirect: 'manual', headers: { accept: 'text/html' } });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/login?next=%2F');
    const api = await fetch(`${base}/api/status`);
    expect(api.status).toBe(401);
    const board = await fetch(`${base}/queues/api/queues`);
    expect(board.status).toBe(401);
    const retry = await fetch(`${base}/retry-group`, { method: 'POST', body: new URLSearchParams({ stream: 'orders', code: 'X', reason: 'y' }) });
    expect(retry.status).toBe(401);
    child.kill('SIGTERM');
    const r = await done;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Dashboard: ${base}/ (log in as ops)`);
    expect(r.stdout).not.toContain('pw-123456');
  });

  it('serves without a login on 127.0.0.1 with --no-auth', async () => {
    const port = await freePort();
    const child = spawnCli(['dashboard', '--no-auth', '--port', String(port)], env());
    const done = collect(child);
    const base = `http://127.0.0.1:${port}`;
    await eventually(async () => (await fetch(`${base}/`).catch(() => undefined))?.status === 200, 30_000, 'the dashboard');
    const status = (await (await fetch(`${base}/api/status`)).json()) as { streams: Array<{ stream: string }> };
    expect(status.streams.map((s) => s.stream)).toEqual(['orders', 'stock-counts', 'boms']);
    child.kill('SIGINT');
    expect((await done).code).toBe(0);
  });
});
