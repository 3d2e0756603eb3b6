import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAMS } from '../../jobs/kinds.js';
import { readHolds } from '../../src/queue/hold/hold-report.js';
import { redisKeys } from '../../src/redis/connection.js';
import { orderRecord, orderState } from '../helpers/order-records.js';
import { eventually, type WorkerProcess } from '../cli/worker-process.js';
import { accountsWorld, type AccountsWorld, type TestAccount } from './accounts-kit.js';

/**
 * Issue 56: one account's service down holds that account's work only, under the turns. acme's service answers 503 to
 * everything: its work holds (the outage), while globex's orders, pulled beside, complete with nothing of it held; once
 * acme's service answers again, acme's orders complete by themselves, each once.
 */
let world: AccountsWorld;
let worker: WorkerProcess;

beforeAll(async () => {
  world = await accountsWorld('accounts-outage');
  await world.add('acme');
  await world.add('globex');
  world.writeFile(['acme', 'globex']);
  worker = world.startWorker({
    ACCOUNT_IDLE_SECONDS: '30',
    OUTAGE_PROBE_MAX_SECONDS: '2',
    JOB_ATTEMPTS: '3',
    BREAKER_THRESHOLD: '50',
  });
  await worker.httpUrl;
});
afterAll(async () => {
  await world?.close();
});

const account = (name: string) => world.accounts.get(name)!;
const synced = (a: TestAccount, id: string) => orderState(a.sandbox.admin.state(), id).orders.length === 1;

describe("one account's service down, beside another", () => {
  it('holds its own work only, and goes on by itself once its service answers', async () => {
    const [acme, globex] = [account('acme'), account('globex')];
    acme.sandbox.admin.setFaults([{ kind: 'status-503' }]);
    const acmeIds = Array.from({ length: 6 }, (_, i) => `DOWN-${i}`);
    acme.feed.append(
      'orders',
      acmeIds.map((id) => orderRecord(id)),
    );
    await eventually(async () => (await readHolds(world.redis, redisKeys(acme.prefix), STREAMS)).outage.open, 30_000, "acme's outage");

    const globexIds = Array.from({ length: 6 }, (_, i) => `BESIDE-${i}`);
    globex.feed.append(
      'orders',
      globexIds.map((id) => orderRecord(id)),
    );
    await eventually(async () => globexIds.every((id) => synced(globex, id)), 20_000, "globex's orders");
    const holds = await readHolds(world.redis, redisKeys(globex.prefix), STREAMS);
    expect(holds.outage.open).toBe(false);
    expect(holds.streams.filter((s) => s.paused || s.refusals > 0)).toEqual([]);
    expect(globex.sandbox.admin.requests().filter((r) => (r.status ?? 0) >= 500)).toEqual([]);
    expect(acmeIds.filter((id) => synced(acme, id))).toEqual([]);

    acme.sandbox.admin.setFaults([]);
    await eventually(async () => acmeIds.every((id) => synced(acme, id)), 30_000, "acme's orders once its service is back");
    expect(await acme.orders.getJobCounts('failed')).toEqual({ failed: 0 });
  }, 90_000);
});
