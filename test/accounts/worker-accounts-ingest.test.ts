import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderRecord, orderState } from '../helpers/order-records.js';
import { eventually, freePort, type WorkerProcess } from '../cli/worker-process.js';
import { newSecret, push } from '../ingest/push-sender.js';
import { accountsWorld, logLines, type AccountsWorld, type TestAccount } from './accounts-kit.js';

/**
 * `worker` with ACCOUNTS_FILE and INGEST_PORT takes pushes in its own process (the receiver `receive` starts): each
 * account's on its own path, checked with its own secret, worked by its own workers against its own service; the
 * receiver follows the file as the worker's accounts do.
 */
let world: AccountsWorld;
let worker: WorkerProcess;
let http: string;
let ingest: string;
const secrets = new Map<string, string>();

beforeAll(async () => {
  world = await accountsWorld('ingest');
  for (const name of ['acme', 'globex', 'initech']) {
    const a = await world.add(name);
    secrets.set(name, newSecret());
    a.settings.INGEST_SECRET = secrets.get(name)!;
  }
  world.writeFile(['acme', 'globex']);
  worker = world.startWorker({ INGEST_PORT: String(await freePort()), WORKER_HTTP_PORT: String(await freePort()) });
  http = await worker.httpUrl;
  ingest = String(logLines(worker).find((l) => String(l.msg).startsWith('worker started'))!.ingest);
});
afterAll(async () => {
  await world?.close();
});

const account = (name: string) => world.accounts.get(name)!;
const synced = (a: TestAccount, id: string) => orderState(a.sandbox.admin.state(), id).orders.length === 1;
const signedBy = (name: string) => ({ secrets: [secrets.get(name)!] });

describe('worker with ACCOUNTS_FILE and INGEST_PORT', () => {
  it('says where it takes pushes, in its start line and in /readyz, and no longer that it takes none', async () => {
    expect(ingest).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const started = logLines(worker).find((l) => String(l.msg).startsWith('worker started'))!;
    expect(started.msg).toContain(`pushes at ${ingest}/ingest/{account}/{stream}`);
    expect(worker.stdoutLines.join('\n')).not.toContain('takes no pushes');
    const ready = (await (await fetch(`${http}/readyz`)).json()) as { checks: Array<{ name: string; ok: boolean; detail?: string }> };
    expect(ready.checks).toContainEqual({ name: 'ingest', ok: true, detail: `pushes at ${ingest}/ingest/{account}/{stream}` });
  });

  it("works a push to each account in that account's own service", async () => {
    expect((await push(ingest, 'acme/orders', orderRecord('PUSH-A'), signedBy('acme'))).status).toBe(202);
    expect((await push(ingest, 'globex/orders', orderRecord('PUSH-B'), signedBy('globex'))).status).toBe(202);
    await eventually(async () => synced(account('acme'), 'PUSH-A') && synced(account('globex'), 'PUSH-B'), 20_000, 'both pushes synced');
    expect(synced(account('globex'), 'PUSH-A')).toBe(false);
    expect(synced(account('acme'), 'PUSH-B')).toBe(false);
    // Each job completed under its own account's prefix (its completion is written after its last call).
    const completed = async (name: string) => (await account(name).orders.getJobCounts('completed')).completed;
    await eventually(async () => (await completed('acme')) === 1 && (await completed('globex')) === 1, 10_000, 'both jobs completed');
  });

  it("refuses a push signed with one account's secret on another's path (401), and queues nothing", async () => {
    const crossed = await push(ingest, 'globex/orders', orderRecord('CROSS-1'), signedBy('acme'));
    expect(crossed.status).toBe(401);
    expect(crossed.body).toEqual({ error: 'signature refused', reason: 'webhook-signature matches no secret' });
    const jobs = await account('globex').orders.getJobs(['waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized']);
    expect(jobs.map((j) => (j.data as { record: { orderId: string } }).record.orderId)).toEqual(['PUSH-B']);
  });

  it('follows the file: an account added takes pushes once it is read, one removed answers 404', async () => {
    world.writeFile(['acme', 'initech']);
    await eventually(
      async () => (await push(ingest, 'initech/orders', orderRecord('PUSH-I'), signedBy('initech'))).status === 202,
      10_000,
      'initech served',
    );
    await eventually(async () => synced(account('initech'), 'PUSH-I'), 20_000, 'PUSH-I synced');
    expect((await push(ingest, 'globex/orders', orderRecord('PUSH-G'), signedBy('globex'))).status).toBe(404);
    // One account's file problem is logged once, not by the worker and again by its receiver.
    const secret = account('acme').settings.INGEST_SECRET!;
    account('acme').settings.INGEST_SECRET = '';
    world.writeFile(['acme', 'initech']);
    await eventually(async () => logLines(worker).some((l) => String(l.msg).includes('INGEST_SECRET: is required')), 10_000, 'the problem');
    await new Promise((r) => setTimeout(r, 1_500));
    expect(logLines(worker).filter((l) => String(l.msg).includes('INGEST_SECRET: is required'))).toHaveLength(1);
    account('acme').settings.INGEST_SECRET = secret;
    expect((await push(ingest, 'acme/orders', orderRecord('PUSH-A2'), signedBy('acme'))).status).toBe(202);
  });

  it('stops taking pushes on SIGTERM and exits 0', async () => {
    const { code } = await worker.stop();
    expect(code).toBe(0);
    await expect(push(ingest, 'acme/orders', orderRecord('LATE'), signedBy('acme'))).rejects.toThrow();
    expect(logLines(worker).at(-1)).toMatchObject({ msg: 'worker stopped' });
    const all = worker.stdoutLines.join('\n') + worker.stderr();
    for (const s of secrets.values()) expect(all).not.toContain(s.slice('whsec_'.length));
  });
});
