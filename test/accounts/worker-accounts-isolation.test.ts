import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAMS } from '../../jobs/kinds.js';
import { readBreaker } from '../../src/queue/hold/refusal-state.js';
import { readHolds } from '../../src/queue/hold/hold-report.js';
import { redisKeys } from '../../src/redis/connection.js';
import { orderRecord, orderState } from '../helpers/order-records.js';
import { eventually, freePort, type WorkerProcess } from '../cli/worker-process.js';
import { accountsWorld, latencies, logLines, median, type AccountsWorld, type TestAccount } from './accounts-kit.js';

/**
 * Issue 36: one account's revoked key holds that account only. Its orders stream pauses (the breaker, 401s); the other
 * account's orders complete with the latency they have alone (feed → completed, within generous noise), and nothing
 * of it is paused or held.
 */
const ORDERS = 8;
let world: AccountsWorld;
let worker: WorkerProcess;
let url: string;

beforeAll(async () => {
  world = await accountsWorld('isolation');
  await world.add('acme');
  await world.add('globex');
  for (const a of world.accounts.values()) a.sandbox.admin.setLatency({ ms: 20 });
  // globex alone first: its latency without a troubled neighbour.
  world.writeFile(['globex']);
  worker = world.startWorker({ BREAKER_THRESHOLD: '3', WORKER_HTTP_PORT: String(await freePort()) });
  url = await worker.httpUrl;
});
afterAll(async () => {
  await world?.close();
});

const account = (name: string) => world.accounts.get(name)!;
const synced = (a: TestAccount, id: string) => orderState(a.sandbox.admin.state(), id).orders.length === 1;

/** Appends `ids` to the account's feed one every 250 ms (so the 1 s poll's phase averages out), noting when. */
async function feedOrders(a: TestAccount, ids: string[], appendedAt: Map<string, number>): Promise<void> {
  for (const id of ids) {
    appendedAt.set(id, Date.now());
    a.feed.append('orders', [orderRecord(id)]);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function globexLatency(tag: string, beside?: () => Promise<void>): Promise<number> {
  const globex = account('globex');
  const appendedAt = new Map<string, number>();
  const ids = Array.from({ length: ORDERS }, (_, i) => `${tag}-${i}`);
  await Promise.all([feedOrders(globex, ids, appendedAt), beside?.()]);
  await eventually(async () => ids.every((id) => synced(globex, id)), 15_000, `globex's ${tag} orders`);
  await eventually(async () => (await latencies(globex, appendedAt)).length === ORDERS, 5_000, `globex's ${tag} jobs completed`);
  return median(await latencies(globex, appendedAt));
}

describe('one account with its key revoked, beside another', () => {
  it('pauses its own orders stream only: the other completes its orders as fast as alone, nothing of it held', async () => {
    const alone = await globexLatency('ALONE');

    world.writeFile(['acme', 'globex']);
    await eventually(async () => logLines(worker).some((l) => l.msg === 'account acme started'), 10_000, 'acme started');
    const acme = account('acme');
    // acme's key revoked at its service: each of its orders meets a 401.
    acme.sandbox.admin.setCredentials({ key: 'key-acme-new', secret: 'sec-acme-new-1d2e' });
    const acmeIds = Array.from({ length: 2 * ORDERS }, (_, i) => `ACME-${i}`);
    const besideRevoked = await globexLatency('BESIDE', () => feedOrders(acme, acmeIds, new Map()));

    await eventually(async () => (await readBreaker(world.redis, redisKeys(acme.prefix), 'orders')).paused, 10_000, "acme's pause");
    expect(await readBreaker(world.redis, redisKeys(acme.prefix), 'orders')).toMatchObject({ paused: true, code: 'UNAUTHORIZED' });
    expect(acmeIds.filter((id) => synced(acme, id))).toEqual([]);

    // globex: every order synced, as fast as alone within generous noise (the poll is 1 s), nothing paused or held.
    expect(besideRevoked).toBeLessThan(alone + 1_500);
    const globex = account('globex');
    const holds = await readHolds(world.redis, redisKeys(globex.prefix), STREAMS);
    expect(holds.outage.open).toBe(false);
    expect(holds.streams.filter((s) => s.paused || s.refusals > 0)).toEqual([]);
    expect(await globex.orders.isPaused()).toBe(false);
    expect(await globex.orders.getJobCounts('failed', 'waiting', 'delayed')).toEqual({ failed: 0, waiting: 0, delayed: 0 });
    expect(globex.sandbox.admin.requests().filter((r) => r.status === 401)).toEqual([]);

    // /readyz: ready; acme named with its held stream, globex without any.
    const res = await fetch(`${url}/readyz`);
    const body = (await res.json()) as {
      status: string;
      accounts: Array<{ account: string; checks: Array<{ name: string; detail?: string }> }>;
    };
    expect(res.status).toBe(200);
    const detail = (name: string) => body.accounts.find((a) => a.account === name)!.checks.find((c) => c.name === 'streams')!.detail;
    expect(detail('acme')).toMatch(/orders paused since/);
    expect(detail('globex')).toBeUndefined();
    console.info(`globex feed→completed median: alone ${alone} ms, beside acme's revoked key ${besideRevoked} ms`);
  });
});
