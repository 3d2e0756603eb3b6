import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { startStack } from './stack.js';

const count = (id: string, quantity: number) => ({
  countId: id,
  location: 'Main Warehouse / A-01',
  countDate: '2026-11-20',
  items: [{ productId: 'SKU-0010', quantity }],
});

function ndjson(lines: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'isync-import-'));
  const file = join(dir, 'records.ndjson');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe.concurrent('import', () => {
  it('queues the records of a file without processing them, and exits 0', async () => {
    const stack = await startStack({}, 'import-queue');
    try {
      const file = ndjson([JSON.stringify(count('C-1', 68)), JSON.stringify(count('C-2', 66))]);
      const r = await runCli(['import', 'stock-counts', file], stack.env);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(
        /^imported 2 records of stock-counts\nImported 2 records of stock-counts in \d+\.\d s: 2 new, 0 already queued before\.\n$/,
      );
      // The records wait as one import batch on the stock-counts intake queue, not yet as record jobs.
      const list = JSON.parse((await runCli(['jobs', 'list', '--state', 'waiting', '--json'], stack.env)).stdout);
      expect(list.jobs).toHaveLength(1);
      const [batch] = list.jobs;
      expect(batch).toMatchObject({
        stream: 'stock-counts',
        state: 'waiting',
        key: 'batch of 2 records, lines 1-2',
        batch: { records: 2, firstLine: 1, lastLine: 2 },
      });
      expect(batch.id).toMatch(/^intake-stock-counts-[0-9a-f]{12}$/);

      const status = JSON.parse((await runCli(['status', '--json'], stack.env)).stdout);
      const counts = status.streams.find((st: { stream: string }) => st.stream === 'stock-counts');
      expect(counts.intake).toEqual({ waiting: 1, active: 0, delayed: 0, failed: 0 });
      expect(counts.counts.waiting).toBe(0);

      const show = await runCli(['jobs', 'show', batch.id, '--json'], stack.env);
      expect(show.code).toBe(0);
      const story = JSON.parse(show.stdout);
      expect(story).toMatchObject({
        id: batch.id,
        stream: 'stock-counts',
        state: 'waiting',
        key: 'batch of 2 records, lines 1-2',
        record: null,
        source: 'import',
        error: null,
      });
      expect(story.batch).toMatchObject({ records: 2, firstLine: 1, lastLine: 2 });
      expect(story.batch.firstRecordIds).toEqual([
        expect.stringMatching(/^stock-counts-C-1-[0-9a-f]{12}$/),
        expect.stringMatching(/^stock-counts-C-2-[0-9a-f]{12}$/),
      ]);
      expect(stack.sandbox.admin.state().variances).toHaveLength(0);
    } finally {
      await stack.close();
    }
  });

  it('with --process, works the records off, lists the bad line, and exits 1', async () => {
    const stack = await startStack({}, 'import-process');
    try {
      const r = await runCli(['import', 'stock-counts', '-', '--process'], stack.env, {
        input: `${JSON.stringify(count('C-1', 68))}\nnot json at all\n`,
      });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('Imported 2 records of stock-counts');
      expect(r.stdout).toContain('1 invalid record among them');
      expect(r.stdout).toMatch(/stock-counts\s+2\s+1\s+0\s+0\s+1\n/);
      expect(r.stdout).toMatch(/stock-counts\s+line 2\s+\[BAD_RECORD\]/);
      expect(stack.sandbox.admin.stockOnHand('/demo/api/facility/10001', '/demo/api/product/SKU-0010')).toBe(68);
    } finally {
      await stack.close();
    }
  });

  it('answers --json with the import counts and the summary, in batches of --batch-size', async () => {
    const stack = await startStack({}, 'import-json');
    try {
      const at = (n: number) => ({ ...count(`C-${n}`, 60 + n), location: `Main Warehouse / A-0${n}` });
      const file = ndjson([1, 2, 3].map((n) => JSON.stringify(at(n))));
      const r = await runCli(['import', 'stock-counts', file, '--process', '--json', '--batch-size', '2'], stack.env);
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.imported).toMatchObject({ records: 3, queued: 3, duplicates: 0, invalid: 0, malformed: 0, batches: 2 });
      expect(out.summary).toMatchObject({ ok: true, perStream: { 'stock-counts': { queued: 3, completed: 3, failed: [] } } });
    } finally {
      await stack.close();
    }
  });

  it('with --process, exits 3 when the service refuses the credentials (the service refuses: not a usage error), naming them', async () => {
    const stack = await startStack({}, 'import-401');
    try {
      const file = ndjson([JSON.stringify(count('C-9', 68))]);
      const r = await runCli(['import', 'stock-counts', file, '--process'], { ...stack.env, INVENTORY_API_SECRET: 'not-the-secret' });
      expect(r.code).toBe(3);
      expect(r.stderr.trim()).toMatch(
        /^INVENTORY_API_KEY, INVENTORY_API_SECRET: the service at \S+ refused them \(HTTP 401\); check them and INVENTORY_ACCOUNT$/,
      );
      expect(r.stderr).not.toContain('not-the-secret');
    } finally {
      await stack.close();
    }
  });

  it('exits 2 for an unknown stream or a missing file', async () => {
    const stack = await startStack({}, 'import-usage');
    try {
      const [stream, file, size] = await Promise.all([
        runCli(['import', 'invoices', '-'], stack.env),
        runCli(['import', 'orders', '/nonexistent/orders.ndjson'], stack.env),
        runCli(['import', 'orders', '-', '--batch-size', '0'], stack.env),
      ]);
      expect(size.code).toBe(2);
      expect(size.stderr).toContain("option '--batch-size <n>' argument '0' is invalid. must be a whole number greater than 0");
      expect(stream.code).toBe(2);
      expect(stream.stderr).toContain('unknown stream "invoices": use one of orders, stock-counts, boms');
      expect(file.code).toBe(2);
      expect(file.stderr).toContain('/nonexistent/orders.ndjson: no such file');
    } finally {
      await stack.close();
    }
  });
});
