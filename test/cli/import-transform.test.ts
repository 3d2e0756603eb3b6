import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { syncedOnce } from '../helpers/order-records.js';
import { collect, runCli, spawnCli } from './run-cli.js';
import { eventually, freePort } from './worker-process.js';
import { startStack } from './stack.js';

const dir = () => mkdtempSync(join(tmpdir(), 'isync-transform-'));
const write = (folder: string, name: string, text: string) => {
  writeFileSync(join(folder, name), text);
  return join(folder, name);
};
const shopifyOrder = () =>
  JSON.parse(readFileSync(new URL('../fixtures/shopify/orders-fulfilled.json', import.meta.url), 'utf8')) as Record<string, any>;

/** The operator's facility aliases for the Shopify location of the fixture (docs/transforms.md). */
const MAPPING =
  'kind,upstream,service\nfacility,shopify:48752903,Main Warehouse\nfacility,shopify:48752903 / shipping,Main Warehouse / A-01\n';

describe.concurrent('import through a transform', () => {
  it('syncs Shopify orders/fulfilled payloads with the built-in transform, and fails the one with a line without SKU', async () => {
    const stack = await startStack({}, 'transform-shopify');
    try {
      const folder = dir();
      const second = shopifyOrder();
      second.name = '#1002';
      second.fulfillments[0].line_items[1].sku = null;
      second.line_items[1].sku = null;
      const file = write(folder, 'shopify.ndjson', `${JSON.stringify(shopifyOrder())}\n${JSON.stringify(second)}\n`);
      const env = {
        ...stack.env,
        TRANSFORMS: 'orders=shopify-orders-fulfilled',
        MAPPING_FILE: write(folder, 'mapping.csv', MAPPING),
      };
      const r = await runCli(['import', 'orders', file, '--process', '--json'], env);
      expect(r.code).toBe(1);
      const out = JSON.parse(r.stdout);
      expect(out.summary.perStream.orders).toMatchObject({ queued: 2, invalid: 1, completed: 1 });
      const [bad] = out.summary.perStream.orders.failed;
      expect(bad.key).toBe('upstream shopify.ndjson:2');
      expect(bad.reason).toBe(
        '[BAD_RECORD] record upstream shopify.ndjson:2: (transform): transform shopify-orders-fulfilled failed: ' +
          'fulfillments[0].line_items[1] (id 14501230002, "Bright lamp 0003") has no sku: its product cannot be named',
      );
      expect(syncedOnce(stack.sandbox.admin.state(), ['1001'])).toBe(true);

      // The order made by the transform carries the payload it came from.
      const found = JSON.parse((await runCli(['find', '1001', '--json'], env)).stdout);
      expect(found.jobs).toHaveLength(1);
      expect(found.jobs[0]).toMatchObject({ state: 'completed', record: { orderId: '1001', origin: 'shopify:48752903' } });
      expect(found.jobs[0].upstream).toEqual({ id: 'shopify.ndjson:1', payload: shopifyOrder(), cut: false });

      // The refused payload: found by its upstream id, shown with what Shopify sent.
      const show = await runCli(['jobs', 'show', bad.id], env);
      expect(show.stdout).toContain('Upstream payload shopify.ndjson:2 (before its transform):');
      expect(show.stdout).toContain('"name": "#1002"');
      expect(show.stdout).toContain(
        'Error: [BAD_RECORD] record upstream shopify.ndjson:2: (transform): transform shopify-orders-fulfilled failed',
      );
      const byUpstream = JSON.parse((await runCli(['find', 'shopify.ndjson:2', '--json'], env)).stdout);
      expect(byUpstream.jobs.map((j: { id: string }) => j.id)).toEqual([bad.id]);
      expect(byUpstream.jobs[0].upstream.payload).toEqual(second);
    } finally {
      await stack.close();
    }
  }, 180_000);

  it('gives each CSV row to a transform module (--transform), and shows the row a throwing transform refused', async () => {
    const stack = await startStack({}, 'transform-module');
    try {
      const folder = dir();
      const module = write(
        folder,
        'export-rows.mjs',
        [
          '// An ERP export: one row per order of one line, its own column names.',
          'export default (row, context) => {',
          '  if (!row.Item) throw new Error(`row ${context.upstreamId} names no item`);',
          '  return {',
          '    orderId: row.Ref,',
          "    origin: 'Main Warehouse',",
          "    lines: [{ productId: row.Item, quantity: Number(row.Qty), unitPrice: Number(row.Price), location: 'Main Warehouse / A-01' }],",
          '  };',
          '};',
          '',
        ].join('\n'),
      );
      const file = write(folder, 'erp.csv', 'Ref,Item,Qty,Price\r\nERP-1,"MUG-BLUE",2,"12.50"\r\nERP-2,,1,4\r\n');
      // The dry run reads the rows through the transform as the import does.
      const dry = await runCli(['import', 'orders', file, '--transform', module, '--dry-run', '--json'], stack.env);
      const plan = JSON.parse(dry.stdout) as { records: Array<{ key: string; outcome: string }> };
      expect(plan.records.map((x) => [x.key, x.outcome])).toEqual([
        ['ERP-1 (upstream erp.csv:2)', 'writes'],
        ['upstream erp.csv:3', 'fails'],
      ]);
      const r = await runCli(['import', 'orders', file, '--transform', module, '--process', '--json'], stack.env);
      expect(r.code).toBe(1);
      const out = JSON.parse(r.stdout);
      expect(syncedOnce(stack.sandbox.admin.state(), ['ERP-1'])).toBe(true);
      const [bad] = out.summary.perStream.orders.failed;
      expect(bad.reason).toBe(
        `[BAD_RECORD] record upstream erp.csv:3: (transform): transform ${module} failed: row erp.csv:3 names no item`,
      );

      const story = JSON.parse((await runCli(['jobs', 'show', bad.id, '--json'], stack.env)).stdout);
      expect(story).toMatchObject({
        state: 'failed',
        key: 'erp.csv:3',
        upstream: { id: 'erp.csv:3', payload: { Ref: 'ERP-2', Item: '', Qty: '1', Price: '4' } },
      });
      const found = await runCli(['find', 'erp.csv:3'], stack.env);
      expect(found.stdout).toContain(`Job ${bad.id}:\nUpstream payload erp.csv:3 (before its transform):`);
      expect(found.stdout).toContain('"Ref": "ERP-2"');

      // And the dashboard's job page, below the record.
      const port = await freePort();
      const dashboard = spawnCli(['dashboard', '--no-auth', '--port', String(port)], stack.env);
      const exited = collect(dashboard);
      try {
        const page = `http://127.0.0.1:${port}/jobs/${encodeURIComponent(bad.id)}`;
        await eventually(async () => (await fetch(page).catch(() => undefined))?.status === 200, 60_000, 'the dashboard');
        const html = await (await fetch(page)).text();
        expect(html).toContain('<h2>Upstream payload erp.csv:3</h2>');
        expect(html).toContain('&quot;Ref&quot;: &quot;ERP-2&quot;');
      } finally {
        dashboard.kill('SIGINT');
        await exited;
      }
    } finally {
      await stack.close();
    }
  }, 180_000);

  it('stops import and worker at start, exit 2, one line per wrong TRANSFORMS setting', async () => {
    const stack = await startStack({}, 'transform-config');
    try {
      const folder = dir();
      const noDefault = write(folder, 'no-default.mjs', 'export const transform = () => null;\n');
      const env = {
        ...stack.env,
        TRANSFORMS: `invoices=x.mjs,orders=shopify-orders-created,stock-counts=${noDefault},boms=${join(folder, 'missing.mjs')}`,
      };
      const [imported, worker] = await Promise.all([runCli(['import', 'boms', '-'], env), runCli(['worker'], env)]);
      for (const run of [imported, worker]) {
        expect(run.code).toBe(2);
        expect(run.stderr).toContain(`TRANSFORMS: boms: ${join(folder, 'missing.mjs')}: no such file`);
      }
      expect(imported.stderr).not.toContain('unknown stream');
      // Past the form, the streams, names and modules, against the kinds.
      const named = { ...env, TRANSFORMS: `invoices=x,orders=shopify-orders-created,stock-counts=${noDefault}` };
      const [second, secondWorker] = await Promise.all([runCli(['import', 'orders', '-'], named), runCli(['worker'], named)]);
      for (const run of [second, secondWorker]) {
        expect(run.code).toBe(2);
        const lines = run.stderr.split('\n').filter((l) => l.includes('TRANSFORMS'));
        expect(lines).toEqual([
          expect.stringContaining('TRANSFORMS: unknown stream "invoices": use one of orders, stock-counts, boms'),
          expect.stringContaining(
            'TRANSFORMS: orders: no transform named "shopify-orders-created" (built in: shopify-orders-fulfilled, shopify-orders)',
          ),
          expect.stringContaining(`TRANSFORMS: stock-counts: ${noDefault} has no default export that is a function`),
        ]);
      }
      const list = JSON.parse((await runCli(['jobs', 'list', '--json'], stack.env)).stdout);
      expect(list.jobs).toEqual([]);
    } finally {
      await stack.close();
    }
  }, 180_000);
});
