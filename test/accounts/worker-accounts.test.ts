import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderRecord, orderState } from '../helpers/order-records.js';
import { eventually, freePort, type WorkerProcess } from '../cli/worker-process.js';
import { runCli, spawnCli } from '../cli/run-cli.js';
import { accountsWorld, logLines, type AccountsWorld } from './accounts-kit.js';

/**
 * Issue 36: `worker` with ACCOUNTS_FILE runs every account in one process, each with its own configuration (its
 * service, credentials, feed, prefix): the same orderId in two accounts is two orders, one in each account's service;
 * one /metrics carries the deployment's totals and the series of the accounts named in METRICS_ACCOUNTS (or in trouble),
 * each labelled with its account, and /metrics?account=NAME any account's (issue 56); /readyz names each account.
 */
let world: AccountsWorld;
let worker: WorkerProcess;
let url: string;

beforeAll(async () => {
  world = await accountsWorld('accounts');
  await world.add('acme');
  await world.add('globex');
  world.writeFile(['acme', 'globex']);
  worker = world.startWorker({ WORKER_HTTP_PORT: String(await freePort()), WORKER_HTTP_HOST: '127.0.0.1', METRICS_ACCOUNTS: 'globex' });
  url = await worker.httpUrl;
});
afterAll(async () => {
  await world?.close();
});

const acme = () => world.accounts.get('acme')!;
const globex = () => world.accounts.get('globex')!;

describe('worker with ACCOUNTS_FILE', () => {
  it('makes the same orderId in two accounts two orders, one in each account', async () => {
    acme().feed.append('orders', [orderRecord('SAME-1')]);
    globex().feed.append('orders', [orderRecord('SAME-1', undefined, { origin: 'Main Warehouse' })]);
    const synced = (a: ReturnType<typeof acme>) => orderState(a.sandbox.admin.state(), 'SAME-1').orders.length === 1;
    await eventually(async () => synced(acme()) && synced(globex()), 20_000, 'SAME-1 in both sandboxes');
    // Each account's job under its own prefix, one completed each; nothing crossed over.
    const completed = async (a: ReturnType<typeof acme>) => (await a.orders.getJobCounts('completed')).completed;
    await eventually(async () => (await completed(acme())) === 1 && (await completed(globex())) === 1, 10_000, 'both jobs completed');
    for (const a of [acme(), globex()]) {
      expect(orderState(a.sandbox.admin.state(), 'SAME-1').orders).toHaveLength(1);
      expect(a.sandbox.admin.counters().creates).toMatchObject({ order: 1 });
    }
    expect(acme().prefix).not.toBe(globex().prefix);
    // Each account's lines name it; the secrets of neither are logged.
    const lines = logLines(worker);
    expect(lines.some((l) => l.account === 'acme' && String(l.msg).includes('account acme started'))).toBe(true);
    expect(lines.some((l) => l.account === 'globex' && String(l.msg).includes('account globex started'))).toBe(true);
    const all = worker.stdoutLines.join('\n') + worker.stderr();
    for (const a of [acme(), globex()]) for (const s of [a.key, a.secret, a.token]) expect(all).not.toContain(s);
  });

  it("serves one /metrics: the totals, and globex's series (METRICS_ACCOUNTS) labelled with it; acme's by name", async () => {
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const lines = text.split('\n');
    // Parses as the exposition format: each metric described once, whatever the number of accounts.
    const described = lines.filter((l) => l.startsWith('# TYPE ')).map((l) => l.split(' ')[2]);
    expect(new Set(described).size).toBe(described.length);
    const helps = lines.filter((l) => l.startsWith('# HELP ')).map((l) => l.split(' ')[2]);
    expect(new Set(helps).size).toBe(helps.length);
    const series = lines.filter((l) => l && !l.startsWith('#'));
    const program = series.filter((l) => l.startsWith('isync_') && !l.startsWith('isync_account'));
    // The totals over both accounts carry none; globex's own series carry it; acme, well and not named, has none.
    expect(program.filter((l) => !l.includes('account=')).some((l) => l.startsWith('isync_queue_jobs{'))).toBe(true);
    expect(series).toContain('isync_queue_jobs{stream="orders",state="completed"} 2');
    expect(series.some((l) => l.startsWith('isync_queue_jobs{') && l.includes('account="globex"'))).toBe(true);
    expect(series.some((l) => /^isync_jobs_total\{.*account="globex"/.test(l))).toBe(true);
    expect(program.filter((l) => l.includes('account="acme"'))).toEqual([]);
    expect(series).toContain('isync_accounts{state="running"} 2');
    expect(series.some((l) => l.startsWith('process_cpu_user_seconds_total'))).toBe(true);
    // Any account's series by name.
    const one = await (await fetch(`${url}/metrics?account=acme`)).text();
    expect(one).toMatch(/^isync_jobs_total\{.*account="acme"\} /m);
    expect(one).toContain('isync_queue_jobs{stream="orders",state="completed",account="acme"} 1');
    expect(one).not.toContain('account="globex"');
    expect((await fetch(`${url}/metrics?account=initech`)).status).toBe(404);
  });

  it('answers /readyz with each account by name', async () => {
    const res = await fetch(`${url}/readyz`);
    const body = (await res.json()) as { status: string; accounts: Array<{ account: string; status: string }> };
    expect(res.status).toBe(200);
    expect(body.status).toBe('ready');
    expect(body.accounts.map((a) => [a.account, a.status]).sort()).toEqual([
      ['acme', 'ready'],
      ['globex', 'ready'],
    ]);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });

  it('runs only the account of --account, and names the accounts when there is no such account', async () => {
    const child = spawnCli(['worker', '--account', 'globex'], { ...world.env, LOG_LEVEL: 'info' });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await eventually(async () => out.includes('worker started'), 15_000, 'the --account worker started');
    const started = out.split('\n').find((l) => l.includes('worker started'))!;
    expect((JSON.parse(started) as { accounts: string[] }).accounts).toEqual(['globex']);
    expect(out).not.toContain('account acme started');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);

    const wrong = await runCli(['worker', '--account', 'nope'], world.env);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--account: no account "nope": ACCOUNTS_FILE');
    expect(wrong.stderr).toContain('acme, globex');
  });

  it('stops every account on SIGTERM and exits 0', async () => {
    const { code } = await worker.stop();
    expect(code).toBe(0);
    const lines = logLines(worker);
    for (const name of ['acme', 'globex'])
      expect(lines.filter((l) => l.account === name && l.msg === `account ${name} stopped`)).toHaveLength(1);
    expect(lines.at(-1)).toMatchObject({ msg: 'worker stopped' });
  });
});
