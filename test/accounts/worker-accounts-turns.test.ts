import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderRecord, orderState } from '../helpers/order-records.js';
import { eventually, freePort, type WorkerProcess } from '../cli/worker-process.js';
import { accountsWorld, type AccountsWorld, type TestAccount } from './accounts-kit.js';

/**
 * Issue 56, accounts as data: the `worker` of ACCOUNTS_FILE opens an account's workers only while it has work (its
 * turn, src/queue/dispatch/), and closes them once it has had none for ACCOUNT_IDLE_SECONDS. Seen from outside: an idle
 * account holds no Redis connection of its own and no worker, /readyz stays ready, and an order pulled later is synced
 * on a turn that ends again once it is done, the other account left closed throughout.
 */
let world: AccountsWorld;
let worker: WorkerProcess;
let url: string;

beforeAll(async () => {
  world = await accountsWorld('accounts-turns');
  await world.add('acme');
  await world.add('globex');
  world.writeFile(['acme', 'globex']);
  worker = world.startWorker({ ACCOUNT_IDLE_SECONDS: '1', WORKER_HTTP_PORT: String(await freePort()), WORKER_HTTP_HOST: '127.0.0.1' });
  url = await worker.httpUrl;
});
afterAll(async () => {
  await world?.close();
});

/** An account's own connections (its workers' and its pool's: BullMQ and the pool name theirs after its prefix). */
async function connections(a: TestAccount): Promise<number> {
  const lines = ((await world.redis.client('LIST')) as string).split('\n');
  return lines.filter((l) => l.includes(`name=${a.prefix}:`)).length;
}

describe('worker with ACCOUNTS_FILE: an account holds workers only while it has work', () => {
  it('holds no connection and no worker for an idle account, and stays ready', async () => {
    const acme = world.accounts.get('acme')!;
    const globex = world.accounts.get('globex')!;
    // The first pulls (at start) find empty feeds: nothing is queued, no turn opens, or one that did closes.
    await eventually(async () => (await connections(acme)) === 0 && (await connections(globex)) === 0, 20_000, 'no account open');
    const res = await fetch(`${url}/readyz`);
    expect(res.status).toBe(200);
    // An idle deployment's process: the accounts open nowhere, so /readyz lists none of them.
    const body = (await res.json()) as { status: string; accounts?: unknown[] };
    expect(body.status).toBe('ready');
    expect(body.accounts ?? []).toEqual([]);
  });

  it('syncs an order pulled while closed on a turn, and closes the account again once it is done', async () => {
    const acme = world.accounts.get('acme')!;
    const globex = world.accounts.get('globex')!;
    expect(await connections(acme)).toBe(0);
    acme.feed.append('orders', [orderRecord('TURN-1')]);
    const appended = Date.now();
    let sawOpen = false;
    await eventually(
      async () => {
        sawOpen ||= (await connections(acme)) > 0;
        return (await acme.orders.getJobCounts('completed')).completed === 1;
      },
      20_000,
      'TURN-1 completed',
    );
    const job = (await acme.orders.getJobs(['completed']))[0]!;
    // The 1 s poll pulls it; its mark opens the account at once.
    expect(job.finishedOn! - appended).toBeLessThan(8_000);
    expect(sawOpen).toBe(true);
    expect(orderState(acme.sandbox.admin.state(), 'TURN-1').orders).toHaveLength(1);
    // The other account stayed closed; acme closes again once idle.
    expect(await connections(globex)).toBe(0);
    await eventually(async () => (await connections(acme)) === 0, 20_000, 'acme closed again');
  });
});
