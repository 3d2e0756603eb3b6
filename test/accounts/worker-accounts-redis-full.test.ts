import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startRedisServer, type RedisServer } from '../../src/redis/embedded-server.js';
import { json, startServer, type TestServer } from '../client/http-server.js';
import { eventually, freePort, type WorkerProcess } from '../cli/worker-process.js';
import { accountsWorld, type AccountsWorld } from './accounts-kit.js';

/**
 * Issue 56, operators at many accounts: with ACCOUNTS_FILE most accounts are closed, and a closed account probes
 * nothing. The process probes Redis's writes itself, under the deployment's prefix: its /metrics answers
 * `isync_redis_writes_refused_seconds` with no account label (what the rule IsyncRedisRefusingWrites reads) and its
 * webhook tells the deployment, with no account open. Its own redis-server, whose maxmemory the test lowers.
 */
let server: RedisServer;
let admin: Redis;
let world: AccountsWorld;
let worker: WorkerProcess;
let url: string;
let hook: TestServer;

beforeAll(async () => {
  server = await startRedisServer({ args: ['--maxmemory-policy', 'noeviction'] });
  admin = new Redis(server.url);
  world = await accountsWorld('accounts-redis-full');
  hook = await startServer((_req, res) => json(res, 200, { ok: true }));
  // Pushed only: nothing opens its turn or its parts.
  const a = await world.add('wayne');
  delete a.settings.UPSTREAM_URL;
  delete a.settings.UPSTREAM_TOKEN;
  world.writeFile(['wayne']);
  worker = world.startWorker({
    REDIS_URL: server.url,
    WORKER_HTTP_PORT: String(await freePort()),
    WORKER_HTTP_HOST: '127.0.0.1',
    ALERT_WEBHOOK_URL: `${hook.url}/hooks/redis`,
    ALERT_REDIS_REFUSED_SECONDS: '2',
  });
  url = await worker.httpUrl;
}, 60_000);
afterAll(async () => {
  await admin?.config('SET', 'maxmemory', '0').catch(() => undefined);
  await world?.close();
  await hook?.close();
  admin?.disconnect();
  await server?.stop();
});

/** The process's own gauge: the line with no label, or undefined. */
async function refusedSeconds(): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('isync_redis_writes_refused_seconds '));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

describe('worker with ACCOUNTS_FILE and no account open, Redis refusing writes', () => {
  it('answers its own isync_redis_writes_refused_seconds, alerts once for the deployment, and clears it when Redis takes writes', async () => {
    await eventually(async () => (await refusedSeconds()) === 0, 10_000, 'the gauge at 0 while Redis takes writes');
    const text = await (await fetch(`${url}/metrics`)).text();
    expect(text).not.toMatch(/account="wayne"/);

    await admin.config('SET', 'maxmemory', '1');
    await eventually(async () => ((await refusedSeconds()) ?? 0) >= 2, 15_000, 'the gauge counting the refusal');
    await eventually(async () => hook.seen.length > 0, 15_000, 'the alert');
    const alert = (JSON.parse(hook.seen[0]!.body) as { text: string }).text;
    expect(alert).toMatch(new RegExp(`^inventory-sync \\(${world.base}\\): Redis has refused writes for \\d+ s: OOM command not allowed`));
    expect(alert).not.toContain('account wayne');

    await admin.config('SET', 'maxmemory', '0');
    await eventually(async () => (await refusedSeconds()) === 0, 15_000, 'the gauge back at 0');
    expect(hook.seen).toHaveLength(1);
  }, 60_000);
});
