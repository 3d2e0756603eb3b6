import { UnrecoverableError, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dueKey } from '../../src/feed/due-set.js';
import { CALL_FAILED } from '../../src/queue/hold/call-hold-scripts.js';
import { recordRefusal } from '../../src/queue/hold/refusal-state.js';
import { runScript } from '../../src/redis/scripts.js';
import { noteWait } from '../../src/queue/wait/wait-store.js';
import { redisKeys } from '../../src/redis/connection.js';
import { json, startServer, type TestServer } from '../client/http-server.js';
import { eventually, freePort, type WorkerProcess } from '../cli/worker-process.js';
import { orderRecord } from '../helpers/order-records.js';
import { accountsWorld, type AccountsWorld, type TestAccount } from './accounts-kit.js';

/**
 * Issue 56, operators at many accounts: an account whose turn is closed (pushed only: no feed keeps its parts open)
 * still answers its figures by name, still alerts, and still takes a look when it has held jobs or records waiting
 * for a reference, all from the deployment's own reads of Redis (the sweep, the due set), with no worker of its own.
 * Each account is set up in Redis before the worker starts, as a turn that ended would leave it: acme with jobs held
 * (its orders stream paused by its breaker), globex with a job failed after its alerts last looked, initech with a
 * record waiting for a product the service lacks, hooli with a call of its service held for 90 s; umbrella has never
 * had anything.
 */
let world: AccountsWorld;
let worker: WorkerProcess;
let url: string;
let hook: TestServer;
let started: number;

/** An account with no feed: its parts open only for its turns. */
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
  world = await accountsWorld('accounts-closed');
  hook = await startServer((_req, res) => json(res, 200, { ok: true }));
  const acme = await pushedOnly('acme');
  const globex = await pushedOnly('globex');
  const initech = await pushedOnly('initech');
  const hooli = await pushedOnly('hooli');
  await pushedOnly('umbrella');
  // acme's orders stream held for the account's refusals, as its breaker trips it: its jobs wait in the paused queue.
  await acme.orders.addBulk(['HELD-1', 'HELD-2'].map((id) => ({ name: 'order', data: { record: orderRecord(id), source: 'push' } })));
  const reason = '[FORBIDDEN] the account is suspended';
  await recordRefusal(world.redis, redisKeys(acme.prefix), 'orders', { threshold: 1, code: 'FORBIDDEN', reason, jobId: 'HELD-0' });
  await acme.orders.pause();
  // globex's alerts looked a moment ago (their mark), then a job failed: no alert has told it.
  await world.redis.set(redisKeys(globex.prefix).alertFailedSeen('orders'), String(Date.now() - 1000));
  await failOne(globex, 'FAIL-1');
  await noteWait(world.redis, redisKeys(initech.prefix), 'orders', 'W-1', {
    refs: [{ type: 'product', name: 'MUG-MISSING' }],
    since: Date.now(),
  });
  const since = Date.now() - 90_000;
  const failedArgs = ['shipment-create', since, 3, '[TRANSIENT] 503', 'TRANSIENT', 2000, 30_000, ''];
  for (let i = 0; i < 3; i++) await runScript(world.redis, CALL_FAILED, [1, redisKeys(hooli.prefix).callHolds(), ...failedArgs]);
  world.writeFile(['acme', 'globex', 'initech', 'hooli', 'umbrella']);
  started = Date.now();
  worker = world.startWorker({
    ACCOUNT_IDLE_SECONDS: '1',
    WORKER_HTTP_PORT: String(await freePort()),
    WORKER_HTTP_HOST: '127.0.0.1',
    ALERT_WEBHOOK_URL: `${hook.url}/hooks/closed`,
    OUTAGE_ALERT_SECONDS: '60',
  });
  url = await worker.httpUrl;
});
afterAll(async () => {
  await world?.close();
  await hook?.close();
});

/** An account's own connections (its workers' and its pool's: BullMQ and the pool name theirs after its prefix). */
async function connections(a: TestAccount): Promise<number> {
  const lines = ((await world.redis.client('LIST')) as string).split('\n');
  return lines.filter((l) => l.includes(`name=${a.prefix}:`)).length;
}

const account = (name: string) => world.accounts.get(name)!;
const wakeOf = async (name: string) => Number((await world.redis.zscore(dueKey(world.base), `${name}!wake`)) ?? NaN);

describe('worker with ACCOUNTS_FILE: an account whose turn is closed', () => {
  it('alerts on a job that failed after its alerts last looked, a stream held and a call held, no turn opened', async () => {
    const told = () => hook.seen.map((r) => JSON.parse(r.body) as { text: string; account: string });
    await eventually(async () => told().length >= 3, 20_000, 'three alerts');
    const globex = told().filter((b) => b.account === 'globex');
    expect(globex).toHaveLength(1);
    expect(globex[0]!.text).toContain(`inventory-sync, account globex (${account('globex').prefix}): 1 orders job failed since `);
    expect(globex[0]!.text).toContain('FAIL-1: test: order FAIL-1 was refused');
    const acme = told().filter((b) => b.account === 'acme');
    expect(acme).toHaveLength(1);
    expect(acme[0]!.text).toContain(`inventory-sync, account acme (${account('acme').prefix}): the orders stream is PAUSED since `);
    expect(acme[0]!.text).toContain('2 jobs wait, none lost');
    const hooli = told().filter((b) => b.account === 'hooli');
    expect(hooli).toHaveLength(1);
    expect(hooli[0]!.text).toMatch(
      /^inventory-sync, account hooli .*: shipment create of the service has been HELD since .* \(9\d s\): \[TRANSIENT\] 503\./,
    );
    // Looked at from Redis: globex and hooli have nothing to run now, so they opened nowhere.
    expect(await connections(account('globex'))).toBe(0);
    expect(await connections(account('hooli'))).toBe(0);
    // Told once: the failure's mark moved past it, the pause's claim is taken.
    expect(Number(await world.redis.get(redisKeys(account('globex').prefix).alertFailedSeen('orders')))).toBeGreaterThan(started - 1000);
    expect(hook.seen).toHaveLength(3);
  });

  it('answers /metrics?account=NAME for a closed account from Redis, without opening it', async () => {
    const acme = await fetch(`${url}/metrics?account=acme`);
    expect(acme.status).toBe(200);
    const text = await acme.text();
    expect(text).toMatch(/^isync_queue_jobs\{stream="orders",state="waiting",account="acme"\} 2$/m);
    expect(text).toMatch(/^isync_queue_jobs\{stream="orders",state="failed",account="acme"\} 0$/m);
    expect(text).not.toMatch(/account="(globex|initech)"/);
    const globex = await (await fetch(`${url}/metrics?account=globex`)).text();
    expect(globex).toMatch(/^isync_queue_jobs\{stream="orders",state="failed",account="globex"\} 1$/m);
    const initech = await (await fetch(`${url}/metrics?account=initech`)).text();
    expect(initech).toMatch(/^isync_waiting_records\{stream="orders",account="initech"\} 1$/m);
    expect(await connections(account('acme'))).toBe(0);
    // Only reads: an account that never had work has no more keys after its figures are read (the test's own queue
    // made its orders meta).
    const keys = () => world.redis.keys(`${account('umbrella').prefix}*`);
    const before = await keys();
    const umbrella = await (await fetch(`${url}/metrics?account=umbrella`)).text();
    expect(umbrella).toMatch(/^isync_queue_jobs\{stream="boms",state="waiting",account="umbrella"\} 0$/m);
    expect(await keys()).toEqual(before);
    expect((await fetch(`${url}/metrics?account=nobody`)).status).toBe(404);
  });

  it('gives an account with held jobs, or with records waiting, a look within a minute: a wake in the due set', async () => {
    // The sweep at start asked for both (a member each of the deployment's one due set, no timer of their own).
    await eventually(async () => !Number.isNaN(await wakeOf('acme')) && !Number.isNaN(await wakeOf('initech')), 10_000, 'the wakes');
    for (const name of ['acme', 'initech']) {
      expect(await wakeOf(name)).toBeGreaterThan(started);
      expect(await wakeOf(name)).toBeLessThanOrEqual(Date.now() + 60_000);
    }
    // globex has nothing to look at again: failed jobs wait for a person.
    expect(Number.isNaN(await wakeOf('globex'))).toBe(true);
    // Its minute come (the wake moved to now): acme opens, finds its jobs still held, closes, and asks again.
    const acme = account('acme');
    await world.redis.zadd(dueKey(world.base), Date.now(), 'acme!wake');
    await eventually(async () => (await connections(acme)) > 0, 10_000, 'acme open');
    await eventually(async () => (await connections(acme)) === 0, 20_000, 'acme closed again');
    const closed = Date.now();
    await eventually(async () => (await wakeOf('acme')) > closed - 5_000, 10_000, 'a wake again');
    expect(await wakeOf('acme')).toBeLessThanOrEqual(Date.now() + 60_000);
    expect((await acme.orders.getJobCounts('waiting')).waiting).toBe(2);
  }, 60_000);
});
