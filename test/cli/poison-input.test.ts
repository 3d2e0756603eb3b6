import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { startStack } from './stack.js';

const order = (n: number) => ({
  orderId: `PZ-${n}`,
  origin: 'Main Warehouse',
  lines: [{ productId: 'MUG-BLUE', quantity: 1, unitPrice: 12.5, location: 'Main Warehouse / A-01' }],
});
const count = (n: number) => ({
  countId: `PZC-${n}`,
  location: 'Main Warehouse / A-01',
  countDate: `2026-10-${String(n).padStart(2, '0')}`,
  items: [{ productId: 'SKU-0010', quantity: 60 + n }],
});
const bom = (n: number) => ({ productId: 'SKU-0100', components: [{ productId: 'SKU-0101', quantity: n }] });

/** 4,000 levels deep in a known field: about 8 KB, once enough to stall every stream. */
const deep = (field: string, key: string, id: string) =>
  Buffer.from(`{"${key}":"${id}","${field}":${'['.repeat(4000)}${']'.repeat(4000)}}`);
/** 20 MB, over the 4 MiB default of MAX_RECORD_BYTES. */
const huge = (id: string) => Buffer.from(JSON.stringify({ ...order(0), orderId: id, note: 'x'.repeat(20 * 1024 * 1024) }));
const notUtf8 = (key: string, id: string) =>
  Buffer.concat([Buffer.from(`{"${key}":"${id}","origin":"Main `), Buffer.from([0xff, 0xfe, 0xfd]), Buffer.from('Warehouse"}')]);

const good = {
  orders: Array.from({ length: 20 }, (_, i) => order(i + 1)),
  counts: Array.from({ length: 20 }, (_, i) => count(i + 1)),
  boms: Array.from({ length: 20 }, (_, i) => bom(i + 1)),
};
/** Poison put in the middle of each stream. */
const mixed = <T>(records: T[], poison: Buffer[]) => [...records.slice(0, 7), ...poison, ...records.slice(7)];

interface Failed {
  key: string;
  reason: string;
}

describe.concurrent('poison input', () => {
  it('sync --once: every good record of every stream syncs, each poison one fails alone with its reason, and the cursor passes them', async () => {
    const stack = await startStack(
      {
        orders: mixed(good.orders, [deep('lines', 'orderId', 'PZ-DEEP'), huge('PZ-HUGE'), notUtf8('orderId', 'PZ-UTF8')]),
        'stock-counts': mixed(good.counts, [deep('items', 'countId', 'PZC-DEEP')]),
        boms: mixed(good.boms, [notUtf8('productId', 'PZB-UTF8')]),
      },
      'poison-sync',
    );
    try {
      const r = await runCli(['sync', '--once', '--json'], stack.env, { timeoutMs: 120_000 });
      expect(r.code, r.stderr).toBe(1);
      const s = JSON.parse(r.stdout) as {
        perStream: Record<string, { queued: number; invalid: number; completed: number; failed: Failed[] }>;
      };
      expect(s.perStream.orders).toMatchObject({ queued: 23, invalid: 3, completed: 20 });
      expect(s.perStream['stock-counts']).toMatchObject({ queued: 21, invalid: 1, completed: 20 });
      expect(s.perStream.boms).toMatchObject({ queued: 21, invalid: 1, completed: 20 });
      const reasons = Object.values(s.perStream)
        .flatMap((p) => p.failed.map((f) => `${f.key}: ${f.reason}`))
        .sort();
      expect(reasons).toEqual([
        'PZ-DEEP: [BAD_RECORD] record PZ-DEEP: (record): nested deeper than 32 levels',
        expect.stringMatching(
          /^PZ-HUGE: \[BAD_RECORD\] record PZ-HUGE: \(record\): is 20\.0 MiB, larger than the cap of 4\.0 MiB \(MAX_RECORD_BYTES\)$/,
        ),
        'PZ-UTF8: [BAD_RECORD] record PZ-UTF8: (record): is not valid UTF-8',
        'PZB-UTF8: [BAD_RECORD] record PZB-UTF8: (record): is not valid UTF-8',
        'PZC-DEEP: [BAD_RECORD] record PZC-DEEP: (record): nested deeper than 32 levels',
      ]);
      expect(
        stack.sandbox.admin
          .state()
          .orders.map((o: { orderId: string }) => o.orderId)
          .sort(),
      ).toEqual(good.orders.map((o) => o.orderId).sort());

      // The cursor is past them: the next run fetches only what is new.
      stack.feed.append('orders', [order(21)]);
      const again = await runCli(['sync', '--once', '--json', '--stream', 'orders'], stack.env, { timeoutMs: 60_000 });
      expect(JSON.parse(again.stdout).perStream.orders).toMatchObject({ queued: 1, duplicates: 0, invalid: 0, completed: 1 });
    } finally {
      await stack.close();
    }
  }, 180_000);

  it('import: the same poison in a file fails line by line, and every good line syncs', async () => {
    const stack = await startStack({}, 'poison-import');
    try {
      const lines = mixed(
        good.orders.map((o) => Buffer.from(JSON.stringify(o))),
        [deep('lines', 'orderId', 'PZ-DEEP'), huge('PZ-HUGE'), notUtf8('orderId', 'PZ-UTF8')],
      );
      const file = join(mkdtempSync(join(tmpdir(), 'isync-poison-')), 'orders.ndjson');
      writeFileSync(file, Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')])));
      const r = await runCli(['import', 'orders', file, '--process', '--json'], stack.env, { timeoutMs: 120_000 });
      expect(r.code, r.stderr).toBe(1);
      const out = JSON.parse(r.stdout) as {
        imported: Record<string, number>;
        summary: { perStream: { orders: { completed: number; failed: Failed[] } } };
      };
      expect(out.imported).toMatchObject({ lines: 23, records: 23, queued: 23, invalid: 3, malformed: 3 });
      expect(out.summary.perStream.orders.completed).toBe(20);
      expect(out.summary.perStream.orders.failed.map((f) => `${f.key}: ${f.reason}`).sort()).toEqual([
        'PZ-DEEP (line 8): [BAD_RECORD] record PZ-DEEP (line 8): (line): nested deeper than 32 levels',
        expect.stringMatching(
          /^PZ-HUGE \(line 9\): \[BAD_RECORD\] record PZ-HUGE \(line 9\): \(line\): is 20\.0 MiB, larger than the cap of 4\.0 MiB \(MAX_RECORD_BYTES\); skipped$/,
        ),
        'PZ-UTF8 (line 10): [BAD_RECORD] record PZ-UTF8 (line 10): (line): is not valid UTF-8',
      ]);
      expect(stack.sandbox.admin.state().orders).toHaveLength(20);
    } finally {
      await stack.close();
    }
  }, 180_000);
});
