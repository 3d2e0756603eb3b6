import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { orderRecord, orderState } from '../helpers/order-records.js';
import { eventually, type WorkerProcess } from '../cli/worker-process.js';
import { accountsWorld, latencies, logLines, median, type AccountsWorld, type TestAccount } from './accounts-kit.js';

/**
 * Issue 36: one account's backfill (thousands of orders imported at once) beside another account's live orders. The
 * backfilled account works its backlog at its own budget the whole time; the live account's orders complete as fast
 * as they do alone (feed → completed, the median, measured alone first in the same worker).
 */
const LIVE_ORDERS = 12;
const BACKFILL = 3_000;
/** What the median of the live account may grow by beside the backfill: its feed is polled every second. */
const MARGIN_MS = 1_500;
let world: AccountsWorld;
let worker: WorkerProcess;

beforeAll(async () => {
  world = await accountsWorld('backfill');
  await world.add('acme');
  await world.add('globex');
  for (const a of world.accounts.values()) a.sandbox.admin.setLatency({ ms: 20 });
  // globex alone first: its latency without a busy neighbour.
  world.writeFile(['globex']);
  worker = world.startWorker();
  await worker.httpUrl;
});
afterAll(async () => {
  await world?.close();
});

const account = (name: string) => world.accounts.get(name)!;
const syncedCount = (a: TestAccount) => a.sandbox.admin.state().orders.length;

/** Appends `ids` to the account's feed one every 250 ms (so the 1 s poll's phase averages out), noting when. */
async function feedOrders(a: TestAccount, ids: string[], appendedAt: Map<string, number>): Promise<void> {
  for (const id of ids) {
    appendedAt.set(id, Date.now());
    a.feed.append('orders', [orderRecord(id)]);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function globexLatency(tag: string): Promise<number> {
  const globex = account('globex');
  const appendedAt = new Map<string, number>();
  const ids = Array.from({ length: LIVE_ORDERS }, (_, i) => `${tag}-${i}`);
  await feedOrders(globex, ids, appendedAt);
  const synced = (id: string) => orderState(globex.sandbox.admin.state(), id).orders.length === 1;
  await eventually(async () => ids.every(synced), 15_000, `globex's ${tag} orders`);
  await eventually(async () => (await latencies(globex, appendedAt)).length === LIVE_ORDERS, 5_000, `globex's ${tag} jobs completed`);
  return median(await latencies(globex, appendedAt));
}

describe("one account's backfill beside another account's live orders", () => {
  it('works the backlog at its own pace while the live account completes its orders as fast as alone', async () => {
    const alone = await globexLatency('ALONE');

    world.writeFile(['acme', 'globex']);
    await eventually(async () => logLines(worker).some((l) => l.msg === 'account acme started'), 10_000, 'acme started');
    const acme = account('acme');
    // acme's backfill: thousands of orders queued at once (import), more than its budget lets it sync in this test.
    const file = join(world.dir, 'backfill.ndjson');
    writeFileSync(file, Array.from({ length: BACKFILL }, (_, i) => JSON.stringify(orderRecord(`BACKFILL-${i}`))).join('\n') + '\n');
    const imported = await runCli(['import', 'orders', file, '--account', 'acme'], world.env);
    expect(imported.code, imported.stderr).toBe(0);
    // The backlog is being worked before globex's orders come.
    await eventually(async () => syncedCount(acme) >= 20, 15_000, "acme's first backfilled orders");

    const acmeBefore = syncedCount(acme);
    const beside = await globexLatency('BESIDE');
    const acmeAfter = syncedCount(acme);

    console.info(
      `globex feed→completed median: alone ${alone} ms, beside acme's backfill ${beside} ms; ` +
        `acme synced ${acmeAfter - acmeBefore} backfilled orders meanwhile (${acmeAfter} of ${BACKFILL} in all)`,
    );
    expect(beside).toBeLessThan(alone + MARGIN_MS);
    // acme kept working its backlog meanwhile, and has most of it left: busy the whole time.
    expect(acmeAfter - acmeBefore).toBeGreaterThan(5);
    expect(acmeAfter).toBeLessThan(BACKFILL);
    expect(await acme.orders.getJobCountByTypes('failed')).toBe(0);
    // Nothing of globex's beside it failed or waits.
    expect(await account('globex').orders.getJobCounts('failed', 'waiting', 'delayed')).toEqual({ failed: 0, waiting: 0, delayed: 0 });
  });
});
