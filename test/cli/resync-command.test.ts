import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxData } from '../../src/sandbox/sandbox-data-schema.js';
import { orderRecord } from '../helpers/order-records.js';
import { cliInProcess } from './cli-in-process.js';
import { collect, runCli, spawnCli } from './run-cli.js';
import { startStack, type Stack } from './stack.js';

describe('resync', () => {
  let stack: Stack;
  const posts = () => stack.sandbox.admin.requests().filter((r) => r.method === 'POST');
  const order = (id: string) => stack.sandbox.admin.state().orders.find((o) => o.orderId === id);
  const shipmentsOf = (id: string) => stack.sandbox.admin.state().shipments.filter((s) => s.primaryOrderUrl === order(id)?.orderUrl);
  const plant = (change: (s: SandboxData & { orders: any[]; shipments: any[] }) => void) => {
    const state = JSON.parse(JSON.stringify(stack.sandbox.admin.state()));
    change(state);
    stack.sandbox.admin.reset(state as SandboxData);
  };

  beforeAll(async () => {
    stack = await startStack({ orders: ['RS-1', 'RS-2', 'RS-3'].map((id) => orderRecord(id)) }, 'resync-cli');
    // Short clocks: the collection budget out of the way (each reconcile reads every collection), and a killed run's
    // locks expire in 5 s, not 30 (JOB_LOCK_SECONDS), so that the run after it takes its record up within seconds.
    stack.env.INVENTORY_COLLECTION_PER_HOUR = '360000';
    stack.env.JOB_LOCK_SECONDS = '5';
    const sync = await runCli(['sync', '--once'], stack.env, { timeoutMs: 120_000 });
    expect(sync.code, sync.stdout + sync.stderr).toBe(0);
  }, 180_000);
  afterAll(() => stack?.close());

  it('makes no write for a record in order, though it reads the service; --dry-run plans no call', async () => {
    const before = posts().length;
    const dry = await runCli(['resync', 'RS-1', '--dry-run', '--json'], stack.env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout).plans).toMatchObject([{ key: 'RS-1', outcome: 'unchanged', calls: [] }]);

    const r = await runCli(['resync', 'RS-1', '--json'], stack.env, { timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.jobs).toMatchObject([{ stream: 'orders', state: 'completed', outcome: 'unchanged' }]);
    expect(report.jobs[0].jobId).toMatch(/^orders-RS-1-[0-9a-f]{12}-resync-[0-9a-z]+$/);
    expect(posts().length).toBe(before);

    // The resync is a job of the record: find lists it, jobs show has its reads.
    const found = JSON.parse((await runCli(['find', 'RS-1', '--json'], stack.env)).stdout);
    expect(found.jobs.map((j: { id: string }) => j.id)).toContain(report.jobs[0].jobId);
    const shown = JSON.parse((await runCli(['jobs', 'show', report.jobs[0].jobId, '--json'], stack.env)).stdout);
    expect(shown.source).toBe('resync');
    expect(shown.attempts[0].calls.map((c: { method: string }) => c.method)).toContain('GET');
  }, 120_000);

  it('puts a drifted record right: an order reopened in the service is completed again', async () => {
    plant((s) => {
      s.orders.find((o) => o.orderId === 'RS-2')!.statusId = 'ORDER_CREATED';
    });
    const dry = await runCli(['resync', 'RS-2', '--dry-run'], stack.env);
    expect(dry.stdout).toContain('complete the order');
    expect(order('RS-2')!.statusId).toBe('ORDER_CREATED');
    const r = await runCli(['resync', 'RS-2'], stack.env, { timeoutMs: 90_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(order('RS-2')!.statusId).toBe('ORDER_COMPLETED');
  }, 120_000);

  it('says what to do for a key known only by a failed job whose record cannot be sent again', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'isync-resync-')), 'bad.ndjson');
    writeFileSync(
      file,
      `${JSON.stringify(orderRecord('RS-BAD', [{ productId: 'MUG-BLUE', quantity: -1, unitPrice: 1, location: 'A-01' }]))}\n`,
    );
    const imported = await cliInProcess(['import', 'orders', file, '--process'], stack.env);
    expect(imported.code, imported.stdout + imported.stderr).toBe(1);
    const r = await cliInProcess(['resync', 'RS-BAD'], stack.env);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain('no recorded version');
    expect(r.stdout).toMatch(
      /orders RS-BAD: not sent again: its only kept job, orders-RS-BAD-[0-9a-f]{12} \(failed\), holds a record that cannot be sent as it is \(lines\.0\.quantity: [^)]+\)\. Fix the record where it comes from and send it again/,
    );
    const json = JSON.parse((await cliInProcess(['resync', 'RS-BAD', '--json'], stack.env)).stdout);
    expect(json).toMatchObject({ ok: false, notFound: [], unusable: [{ stream: 'orders', key: 'RS-BAD', state: 'failed' }] });
  }, 120_000);

  it('exits 1 naming a key of which nothing is recorded', async () => {
    const r = await runCli(['resync', 'NO-SUCH-ORDER'], stack.env);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('NO-SUCH-ORDER: no recorded version');
  });

  it('a repair killed halfway and run again applies nothing twice', async () => {
    plant((s) => {
      const o = s.orders.find((x) => x.orderId === 'RS-3')!;
      s.shipments = s.shipments.filter((x) => x.primaryOrderUrl !== o.orderUrl);
      s.orders = s.orders.filter((x) => x.orderId !== 'RS-3');
    });
    const before = posts().length;
    stack.sandbox.admin.setLatency({ ms: 400 });
    const child = spawnCli(['reconcile', '--repair'], stack.env);
    const ended = collect(child, { timeoutMs: 90_000 });
    // Killed once the order is created, before its shipment is: the job is left active, its progress half done.
    const deadline = Date.now() + 60_000;
    while (!order('RS-3') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    await ended;
    stack.sandbox.admin.setLatency(null);
    expect(order('RS-3')).toBeDefined();

    const again = await runCli(['reconcile', '--repair'], stack.env, { timeoutMs: 120_000 });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    // Writes the service took: the killed run's last POST may have reached the sandbox and died there, its body never
    // read and nothing applied (no answer was given, so no status); a write applied twice would be answered twice.
    const written = posts()
      .slice(before)
      .filter((p) => p.status !== undefined);
    expect(written.filter((p) => p.path.endsWith('/api/order'))).toHaveLength(1);
    expect(written.filter((p) => /\/api\/shipment\/?$/.test(p.path))).toHaveLength(1);
    expect(shipmentsOf('RS-3').map((s) => s.statusId)).toEqual(['SHIPMENT_SHIPPED']);
    expect(order('RS-3')!.statusId).toBe('ORDER_COMPLETED');
    expect((await runCli(['reconcile'], stack.env)).code).toBe(0);
  }, 240_000);
});
