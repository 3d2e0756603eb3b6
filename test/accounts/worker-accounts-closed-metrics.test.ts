import { writeFileSync } from 'node:fs';
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountPrefix } from '../../config/accounts.js';
import { deploymentKey } from '../../src/queue/dispatch/deployment-summary.js';
import { recordRefusal } from '../../src/queue/hold/refusal-state.js';
import { redisKeys } from '../../src/redis/connection.js';
import { eventually, freePort, type WorkerProcess } from '../cli/worker-process.js';
import { deletePrefix } from '../helpers/redis.js';
import { orderRecord } from '../helpers/order-records.js';
import { accountsWorld, type AccountsWorld, type TestAccount } from './accounts-kit.js';

/**
 * Issue 56, operators at many accounts: the plain /metrics of a `worker` with ACCOUNTS_FILE holds the deployment's
 * figures (the sweep's summary of every account, open or closed: `isync_deployment_*`) and the series of the accounts
 * closed in the process that are in trouble, at most 50, with none of its own connections or workers opened for them.
 * acme has its orders stream paused with 2 jobs held, globex a job failed for good a moment ago, able (first by name)
 * never had anything, nor had zeta, named in METRICS_ACCOUNTS; and 55 more accounts (`t-00`..`t-54`, each with its
 * orders queue paused) make the trouble more than shown.
 */
let world: AccountsWorld;
let worker: WorkerProcess;
let url: string;
const many = Array.from({ length: 55 }, (_, i) => `t-${String(i).padStart(2, '0')}`);
const pausedQueues: Queue[] = [];

async function pushedOnly(name: string): Promise<TestAccount> {
  const a = await world.add(name);
  delete a.settings.UPSTREAM_URL;
  delete a.settings.UPSTREAM_TOKEN;
  return a;
}

/** A job of the account that fails for good in a worker of the test's own (the account's turn, as it ended). */
async function failOne(a: TestAccount, id: string): Promise<void> {
  const failing = new Worker(
    'orders',
    async () => {
      throw new UnrecoverableError(`test: order ${id} was refused`);
    },
    { connection: world.redis.duplicate(), prefix: a.prefix },
  );
  try {
    await a.orders.add('order', { record: orderRecord(id), source: 'push' }, { jobId: id, attempts: 1 });
    await eventually(async () => (await a.orders.getJobCounts('failed')).failed === 1, 10_000, `${id} failed`);
  } finally {
    await failing.close();
  }
}

beforeAll(async () => {
  world = await accountsWorld('accounts-closed-metrics');
  const acme = await pushedOnly('acme');
  const globex = await pushedOnly('globex');
  const able = await pushedOnly('able');
  await acme.orders.addBulk(['HELD-1', 'HELD-2'].map((id) => ({ name: 'order', data: { record: orderRecord(id), source: 'push' } })));
  const reason = '[FORBIDDEN] the account is suspended';
  await recordRefusal(world.redis, redisKeys(acme.prefix), 'orders', { threshold: 1, code: 'FORBIDDEN', reason, jobId: 'HELD-0' });
  await acme.orders.pause();
  await failOne(globex, 'FAIL-1');
  for (const name of many) {
    const q = new Queue('orders', { connection: world.redis, prefix: accountPrefix(world.base, name) });
    pausedQueues.push(q);
    await q.pause();
  }
  // The many accounts share able's settings (pushed only: no call of the service is made for a closed account).
  const accounts = Object.fromEntries([
    ...[acme, globex, able].map((a) => [a.name, a.settings] as const),
    ...many.map((name) => [name, able.settings] as const),
    ['zeta', able.settings] as const,
  ]);
  writeFileSync(world.file, JSON.stringify({ accounts }, null, 2));
  worker = world.startWorker({
    ACCOUNT_IDLE_SECONDS: '1',
    WORKER_HTTP_PORT: String(await freePort()),
    WORKER_HTTP_HOST: '127.0.0.1',
    METRICS_ACCOUNTS: 'zeta',
  });
  url = await worker.httpUrl;
}, 60_000);
afterAll(async () => {
  for (const q of pausedQueues) await q.close();
  for (const name of many) await deletePrefix(world.redis, accountPrefix(world.base, name));
  await world?.close();
});

/** An account's own connections (its workers' and its pool's: BullMQ and the pool name theirs after its prefix). */
async function connections(a: TestAccount): Promise<number> {
  const lines = ((await world.redis.client('LIST')) as string).split('\n');
  return lines.filter((l) => l.includes(`name=${a.prefix}:`)).length;
}

const metrics = async () => (await fetch(`${url}/metrics`)).text();
const accountsIn = (text: string) => new Set([...text.matchAll(/account="([^"(]+)"/g)].map((m) => m[1]!));
const value = (text: string, series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);

describe('worker with ACCOUNTS_FILE: the plain /metrics at many accounts, most of them closed', () => {
  it("serves the deployment's figures from the sweep's summary: every account, open or closed", async () => {
    await eventually(async () => (await metrics()).includes('isync_deployment_accounts{state="swept"}'), 20_000, 'the summary');
    const text = await metrics();
    expect(value(text, 'isync_deployment_accounts{state="swept"}')).toBe(59);
    // acme, globex and the 55 paused ones; able and zeta are well.
    expect(value(text, 'isync_deployment_accounts{state="troubled"}')).toBe(57);
    expect(value(text, 'isync_deployment_jobs{state="held"}')).toBe(2);
    expect(value(text, 'isync_deployment_jobs{state="failed"}')).toBe(1);
    expect(value(text, 'isync_deployment_jobs{state="failed-recent"}')).toBe(1);
    expect(value(text, 'isync_deployment_queues_paused')).toBe(56);
    expect(value(text, 'isync_deployment_swept_timestamp_seconds')).toBeGreaterThan(Date.now() / 1000 - 120);
    // The summary is one hash of the deployment, read by every process's scrape.
    expect(await world.redis.hget(deploymentKey(world.base), 'accounts')).toBe('59');
  });

  it('shows the series of a closed paused account and of one with failed jobs, why, and opens neither', async () => {
    await eventually(async () => accountsIn(await metrics()).has('globex'), 20_000, 'acme and globex shown');
    const text = await metrics();
    expect(text).toMatch(/^isync_queue_jobs\{stream="orders",state="waiting",account="acme"\} 2$/m);
    expect(text).toMatch(/^isync_stream_paused\{stream="orders",account="acme"\} 1$/m);
    expect(text).toMatch(/^isync_account_trouble\{account="acme",reason="stream-paused"\} 1$/m);
    expect(text).toMatch(/^isync_queue_jobs\{stream="orders",state="failed",account="globex"\} 1$/m);
    expect(text).toMatch(/^isync_account_trouble\{account="globex",reason="jobs-failing"\} 1$/m);
    // The process's totals stay those of the accounts open in it (none): a sum over processes counts nothing twice.
    expect(text).not.toMatch(/^isync_queue_jobs\{stream="orders",state="waiting"\} /m);
    expect(await connections(world.accounts.get('acme')!)).toBe(0);
    expect(await connections(world.accounts.get('globex')!)).toBe(0);
  });

  it('keeps the series bounded: the first 50 closed accounts in trouble by name, those named; a healthy one adds none', async () => {
    // 10 closed accounts read a scrape: the 50 listed and zeta are all shown within 6 scrapes.
    await eventually(async () => accountsIn(await metrics()).size >= 51, 20_000, '51 accounts shown');
    const text = await metrics();
    const shown = accountsIn(text);
    expect([...shown].sort()).toEqual(['acme', 'globex', ...many.slice(0, 48), 'zeta']);
    expect(shown.has('able')).toBe(false);
    expect(text).not.toMatch(/^isync_account_trouble\{account="zeta"/m);
    expect(value(text, 'isync_accounts{state="shown"}')).toBe(51);
    const series = text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;
    const perAccount = text.split('\n').filter((l) => l.includes('account="zeta"')).length;
    expect(series).toBeLessThan(51 * perAccount + 400);
    // Still every account's figures by name, the healthy one's too.
    expect(await (await fetch(`${url}/metrics?account=able`)).text()).toMatch(/account="able"/);
  });
});
