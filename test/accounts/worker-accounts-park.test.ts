import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAMS } from '../../jobs/kinds.js';
import { intakeQueueName } from '../../src/queue/intake-queue.js';
import { orderRecord, orderState } from '../helpers/order-records.js';
import { eventually, freePort, type WorkerProcess } from '../cli/worker-process.js';
import { accountsWorld, type AccountsWorld, type TestAccount } from './accounts-kit.js';

/**
 * Issue 36, connections: the `worker` of ACCOUNTS_FILE parks a queue's worker idle for WORKER_PARK_SECONDS (closes
 * it with its blocking connection) and one connection per account waits for work on every parked queue. Seen from
 * outside: the accounts' worker connections go, one doorbell each stays, /readyz stays ready, and an order pulled
 * later is synced by a worker started again for it.
 */
let world: AccountsWorld;
let worker: WorkerProcess;
let url: string;

beforeAll(async () => {
  world = await accountsWorld('accounts-park');
  await world.add('acme');
  await world.add('globex');
  world.writeFile(['acme', 'globex']);
  worker = world.startWorker({ WORKER_PARK_SECONDS: '1', WORKER_HTTP_PORT: String(await freePort()), WORKER_HTTP_HOST: '127.0.0.1' });
  url = await worker.httpUrl;
});
afterAll(async () => {
  await world?.close();
});

/** An account's connections by what they are: its streams' record and intake workers' (BullMQ names them after the queue), its doorbell. */
async function connections(a: TestAccount): Promise<{ workers: number; bell: number }> {
  const lines = ((await world.redis.client('LIST')) as string).split('\n');
  const named = (name: string) => lines.filter((l) => l.includes(`name=${name} `)).length;
  const queues = STREAMS.flatMap((s) => [s, intakeQueueName(s)]);
  return {
    workers: queues.reduce((n, q) => n + named(`${a.prefix}:${Buffer.from(q).toString('base64')}`), 0),
    bell: named(`${a.prefix}:park-bell`),
  };
}

describe('worker with ACCOUNTS_FILE and WORKER_PARK_SECONDS', () => {
  it("closes idle accounts' workers, keeps one doorbell each, and stays ready", async () => {
    const acme = world.accounts.get('acme')!;
    const globex = world.accounts.get('globex')!;
    // Started: a record and an intake worker per stream, each with its blocking connection.
    await eventually(async () => (await connections(acme)).workers === STREAMS.length * 2, 20_000, 'acme workers started');
    await eventually(
      async () => {
        const [a, g] = [await connections(acme), await connections(globex)];
        return a.workers === 0 && g.workers === 0 && a.bell === 1 && g.bell === 1;
      },
      20_000,
      'every worker parked, one doorbell per account',
    );
    const res = await fetch(`${url}/readyz`);
    const body = (await res.json()) as { status: string; accounts: Array<{ account: string; status: string }> };
    expect(res.status).toBe(200);
    expect(body.accounts.map((a) => [a.account, a.status]).sort()).toEqual([
      ['acme', 'ready'],
      ['globex', 'ready'],
    ]);
  });

  it('syncs an order pulled while parked, on a worker started again for it, and parks it again', async () => {
    const acme = world.accounts.get('acme')!;
    const globex = world.accounts.get('globex')!;
    expect((await connections(acme)).workers).toBe(0);
    acme.feed.append('orders', [orderRecord('PARKED-1')]);
    const appended = Date.now();
    await eventually(async () => (await acme.orders.getJobCounts('completed')).completed === 1, 20_000, 'PARKED-1 completed');
    const job = (await acme.orders.getJobs(['completed']))[0]!;
    // The 1 s poll pulls it; the doorbell starts the orders worker at once (not after BullMQ's 60 s wait).
    expect(job.finishedOn! - appended).toBeLessThan(8_000);
    expect(orderState(acme.sandbox.admin.state(), 'PARKED-1').orders).toHaveLength(1);
    // The other account's workers stayed parked; acme's orders worker parks again once idle.
    expect((await connections(globex)).workers).toBe(0);
    await eventually(async () => (await connections(acme)).workers === 0, 20_000, 'acme parked again');
  });
});
