import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { orderRecord, orderState } from '../helpers/order-records.js';
import { eventually, type WorkerProcess } from '../cli/worker-process.js';
import { accountsWorld, logLines, type AccountsWorld, type TestAccount } from './accounts-kit.js';

/**
 * Issue 36: `worker` follows ACCOUNTS_FILE without a restart: an account added starts and works, one removed stops
 * taking work and keeps its data in Redis, one whose settings changed restarts with them, and a broken file changes
 * nothing (each problem logged on a line of its own).
 */
let world: AccountsWorld;
let worker: WorkerProcess;

beforeAll(async () => {
  world = await accountsWorld('reload');
  for (const name of ['acme', 'globex', 'initech']) await world.add(name);
  world.writeFile(['acme', 'globex']);
  // A long grace period: the removed account's slow order must finish within it even on a loaded machine.
  worker = world.startWorker({ SHUTDOWN_GRACE_SECONDS: '20' });
  await worker.httpUrl;
});
afterAll(async () => {
  await world?.close();
});

const account = (name: string) => world.accounts.get(name)!;
const synced = (a: TestAccount, id: string) => orderState(a.sandbox.admin.state(), id).orders.length === 1;
const said = (text: string, name?: string) =>
  logLines(worker).filter((l) => String(l.msg).includes(text) && (name === undefined || l.account === name)).length;

/** Appends an order to the account's feed and waits until its service has it. */
async function syncs(a: TestAccount, id: string): Promise<void> {
  a.feed.append('orders', [orderRecord(id)]);
  await eventually(async () => synced(a, id), 15_000, `${id} in ${a.name}'s sandbox`);
}

describe('worker following ACCOUNTS_FILE', () => {
  it('starts an account added to the file and stops one removed from it, whose data stays in Redis', async () => {
    await syncs(account('acme'), 'A-1');
    await syncs(account('globex'), 'G-1');
    expect(said('account initech started')).toBe(0);

    // A slow order of globex in progress when it is removed: it finishes within the grace period.
    const slow = account('globex');
    slow.sandbox.admin.setLatency({ ms: 600 });
    slow.feed.append('orders', [orderRecord('G-SLOW')]);
    // G-SLOW's own job running: G-1's may still be active a moment after its order reached the sandbox (its completion
    // is written after its last call), and a wait for any active job then saw G-1's and removed globex before G-SLOW ran.
    const running = async (id: string) =>
      (await slow.orders.getActive()).some((j) => (j.data as { record: { orderId: string } }).record.orderId === id);
    await eventually(async () => running('G-SLOW'), 10_000, 'G-SLOW active');
    world.writeFile(['acme', 'initech']);
    await eventually(async () => said('account initech started', 'initech') === 1, 10_000, 'initech started');
    await eventually(async () => said('account globex stopped', 'globex') === 1, 25_000, 'globex stopped');
    expect(said('no longer in ACCOUNTS_FILE', 'globex')).toBe(1);
    expect(synced(slow, 'G-SLOW')).toBe(true);
    expect(said('did not finish within', 'globex')).toBe(0);
    await syncs(account('initech'), 'I-1');
    await syncs(account('acme'), 'A-2');

    // The removed account takes no more work: its feed is not pulled, its service not asked.
    const globex = account('globex');
    const asked = globex.sandbox.admin.requests().length;
    globex.feed.append('orders', [orderRecord('G-2')]);
    await new Promise((r) => setTimeout(r, 3_000));
    expect(synced(globex, 'G-2')).toBe(false);
    expect(globex.sandbox.admin.requests().length).toBe(asked);
    // Its data is kept: its job, its cursor and the rest of its keys under its prefix.
    expect(await globex.orders.getJobCounts('completed', 'active', 'waiting')).toEqual({ completed: 2, active: 0, waiting: 0 });
    const [, keys] = await world.redis.scan('0', 'MATCH', `${globex.prefix}*`, 'COUNT', 10_000);
    expect(keys.length).toBeGreaterThan(0);
    // The others were not restarted.
    expect(said('account acme started', 'acme')).toBe(1);
  });

  it('restarts an account whose settings changed, and only it', async () => {
    const acme = account('acme');
    acme.settings.ORDER_POLL_SECONDS = '2';
    world.writeFile(['acme', 'initech']);
    await eventually(async () => said('account acme started', 'acme') === 2, 15_000, 'acme restarted');
    expect(said('its settings changed', 'acme')).toBe(1);
    expect(said('account initech started', 'initech')).toBe(1);
    await syncs(acme, 'A-3');
    await syncs(account('initech'), 'I-2');
  });

  it('keeps the accounts as they were when the file is broken, one line per problem', async () => {
    const stoppedBefore = said('stopped');
    writeFileSync(world.file, '{"accounts": {"acme": ');
    await eventually(async () => said('is not valid JSON') === 1, 10_000, 'the broken file logged');
    const doc = {
      accounts: {
        acme: { ...account('acme').settings, REDIS_URL: 'redis://elsewhere:6379' },
        'Bad Name': {},
        initech: { ...account('initech').settings, INVENTORY_POST_PER_MINUTE: 'many' },
      },
    };
    writeFileSync(world.file, JSON.stringify(doc));
    await eventually(async () => said('run as they were until ACCOUNTS_FILE is fixed') >= 3, 10_000, 'the problems logged');
    const problems = logLines(worker).filter((l) => String(l.msg).includes('run as they were'));
    // The JSON, then the file's two problems, each on its own line at error level.
    expect(problems.map((l) => l.level)).toEqual([50, 50, 50]);
    expect(problems.some((l) => /account "acme": REDIS_URL: is the deployment's/.test(String(l.msg)))).toBe(true);
    expect(problems.some((l) => /account "Bad Name"/.test(String(l.msg)))).toBe(true);
    // Nothing stopped or restarted: both accounts work on with their settings.
    expect(said('stopped')).toBe(stoppedBefore);
    await syncs(account('acme'), 'A-4');
    await syncs(account('initech'), 'I-3');
    // The file fixed as it was before: nothing to restart.
    world.writeFile(['acme', 'initech']);
    await syncs(account('acme'), 'A-5');
    expect(said('account acme started', 'acme')).toBe(2);
  });
});
