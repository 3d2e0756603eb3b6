import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderRecord } from '../helpers/order-records.js';
import { runCli } from './run-cli.js';
import { SECRETS, startStack, type Stack } from './stack.js';

describe('audit command', () => {
  let stack: Stack;
  let syncLog = '';

  beforeAll(async () => {
    stack = await startStack(
      {
        orders: [orderRecord('AU-1'), orderRecord('AU-2')],
        boms: [{ productId: 'SKU-0020', components: [{ productId: 'SKU-0021', quantity: 3 }] }],
      },
      'audit-cli',
    );
    const sync = await runCli(['sync', '--once'], { ...stack.env, LOG_LEVEL: 'info' }, { timeoutMs: 120_000 });
    expect(sync.code, sync.stdout + sync.stderr).toBe(0);
    syncLog = sync.stderr;
  }, 180_000);
  afterAll(() => stack?.close());

  it('lists every write the service took, with its job and the entity it made (csv)', async () => {
    const r = await runCli(['audit', '--format', 'csv'], stack.env);
    expect(r.code, r.stderr).toBe(0);
    const [head, ...rows] = r.stdout.trim().split('\r\n');
    expect(head).toBe('at,stream,key,jobId,method,path,status,entityUrl');
    const posts = stack.sandbox.admin.requests().filter((q) => q.method === 'POST');
    expect(rows).toHaveLength(posts.length);
    const au1 = rows.filter((l) => l.split(',')[2] === 'AU-1').map((l) => l.split(','));
    const order = stack.sandbox.admin.state().orders.find((o) => o.orderId === 'AU-1')!;
    const shipment = stack.sandbox.admin.state().shipments.find((s) => s.primaryOrderUrl === order.orderUrl)!;
    expect(au1.map((c) => [c[4], c[5], c[7]])).toEqual([
      ['POST', '/demo/api/order', order.orderUrl],
      ['POST', '/demo/api/shipment', shipment.shipmentUrl],
      ['POST', shipment.shipmentUrl, shipment.shipmentUrl],
      ['POST', `${order.orderUrl}/complete`, order.orderUrl],
    ]);
    expect(au1.every((c) => c[3]!.startsWith('orders-AU-1-') && Number(c[6]) < 300)).toBe(true);
    for (const s of Object.values(SECRETS)) expect(r.stdout).not.toContain(s);
  });

  it('keeps to a stream and a time window; ndjson and --json for programs', async () => {
    const boms = await runCli(['audit', '--stream', 'boms', '--format', 'ndjson'], stack.env);
    const lines = boms.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toMatchObject([{ stream: 'boms', key: 'SKU-0020', method: 'POST', entityUrl: '/demo/api/product/SKU-0020' }]);
    const none = await runCli(['audit', '--until', '2000-01-01', '--json'], stack.env);
    expect(JSON.parse(none.stdout)).toEqual([]);
    const recent = await runCli(['audit', '--since', '1h', '--json'], stack.env);
    expect(JSON.parse(recent.stdout).length).toBe(9);
  });

  it('writes one log line per write, to keep the audit as long as the logs are', () => {
    const lines = syncLog
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, any>)
      .filter((l) => l.msg === 'service write');
    expect(lines).toHaveLength(stack.sandbox.admin.requests().filter((q) => q.method === 'POST').length);
    expect(lines.find((l) => l.key === 'AU-1' && l.write.path === '/demo/api/order')).toMatchObject({
      stream: 'orders',
      write: { method: 'POST' },
    });
    for (const s of Object.values(SECRETS)) expect(syncLog).not.toContain(s);
  });

  it('refuses a time it cannot read, naming the option (exit 2)', async () => {
    const r = await runCli(['audit', '--since', 'yesterday'], stack.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--since: "yesterday" is not a time');
  });
});
