import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { orderKind } from '../../jobs/orders/order-kind.js';
import { orderRecordSchema } from '../../jobs/orders/order-record.js';
import { readCsvRecords, type CsvMode } from '../../src/feed/csv-records.js';
import type { NdjsonEntry } from '../../src/feed/ndjson.js';
import type { CsvLayout } from '../../src/records/csv-layout.js';
import { lifeExport, lifeSnapshots } from '../helpers/order-life.js';

async function all(text: string, mode: CsvMode): Promise<NdjsonEntry[]> {
  const out: NdjsonEntry[] = [];
  // Small chunks, so the rows of one record are cut across them.
  const bytes = Buffer.from(text);
  const parts = Array.from({ length: Math.ceil(bytes.length / 11) }, (_, i) => bytes.subarray(i * 11, i * 11 + 11));
  for await (const entries of readCsvRecords(Readable.from(parts), mode)) out.push(...entries);
  return out;
}

const orders: CsvMode = { layout: orderKind.record.csv!, keyField: 'orderId' };
const strip = (entries: NdjsonEntry[]) =>
  entries.map((e) => ('error' in e ? { line: e.line, error: e.error, key: e.key } : { line: e.line, value: e.value }));

describe('gathering an order export of the order life into snapshots', () => {
  it('makes rows with a fulfillmentId that fulfillment, rows without one unshipped, status and updatedAt per order', async () => {
    const entries = strip(await all(lifeExport, orders));
    expect(entries).toEqual([
      { line: 2, value: lifeSnapshots[0] },
      { line: 5, value: lifeSnapshots[1] },
    ]);
    for (const e of entries) expect(orderRecordSchema.safeParse(e.value).success).toBe(true);
  });

  it('gathers a fulfillment whose rows are apart, and keeps several fulfillments in the order the file names them', async () => {
    const csv = [
      'orderId,origin,productId,quantity,unitPrice,location,fulfillmentId,status',
      'W-3,WH,A,1,1,WH / 1,F2,fulfilled',
      'W-3,WH,B,1,1,WH / 1,F1,fulfilled',
      'W-3,WH,C,1,1,WH / 2,F2,fulfilled',
    ].join('\n');
    const [entry] = await all(csv, orders);
    const record = (entry as { value: { fulfillments: unknown } }).value;
    expect(record.fulfillments).toEqual([
      {
        fulfillmentId: 'F2',
        lines: [
          { productId: 'A', quantity: 1, location: 'WH / 1' },
          { productId: 'C', quantity: 1, location: 'WH / 2' },
        ],
      },
      { fulfillmentId: 'F1', lines: [{ productId: 'B', quantity: 1, location: 'WH / 1' }] },
    ]);
    expect(orderRecordSchema.safeParse(record).success).toBe(true);
  });

  it('fails the order whose rows disagree on its status, naming the line and the column', async () => {
    const csv = lifeExport.replace(
      'WEB-1,open,2026-11-21T15:30:12,Main Warehouse,MUG-RED',
      'WEB-1,fulfilled,2026-11-21T15:30:12,Main Warehouse,MUG-RED',
    );
    expect(strip(await all(csv, orders))[0]).toEqual({
      line: 2,
      key: 'WEB-1',
      error: 'line 4, column status: "fulfilled" differs from "open" on line 2, the first row of WEB-1',
    });
  });

  it('fails a fulfilled order whose rows do not all carry a fulfillmentId when its record is checked', async () => {
    const csv = lifeExport.replaceAll(',open,', ',fulfilled,');
    const [first] = await all(csv, orders);
    const checked = orderRecordSchema.safeParse((first as { value: unknown }).value);
    expect(checked.error?.issues.map((i) => i.message)).toEqual([
      "a fulfilled order's fulfillments ship 0 of MUG-RED at Main Warehouse / A-02, not the lines' 3",
    ]);
  });
});

describe("a layout's extra columns and shape hook", () => {
  const layout: CsvLayout = {
    head: [{ name: 'id' }],
    rows: 'items',
    row: [{ name: 'n', type: 'number' }],
    extra: {
      head: [{ name: 'note', optional: true }],
      row: [{ name: 'weight', type: 'number', optional: true }],
      shape: ({ record, rows }) => {
        const heavy = rows.find((r) => (r.cells.weight as number) > 10);
        if (heavy) throw new Error(`line ${heavy.line}, column weight: more than 10`);
        return { ...record, weights: rows.map((r) => r.cells.weight ?? null) };
      },
    },
  };
  const mode: CsvMode = { layout, keyField: 'id' };

  it('reads the extra cells per row beside the element, and the record is what the hook makes', async () => {
    expect(strip(await all('id,n,weight,note\nA,1,2,x\nA,2,,x\n', mode))).toEqual([
      { line: 2, value: { id: 'A', note: 'x', items: [{ n: 1 }, { n: 2 }], weights: [2, null] } },
    ]);
  });

  it('fails a record the hook refuses with its reason, and an extra cell that is no number naming the line', async () => {
    expect(strip(await all('id,n,weight\nA,1,2\nA,2,11\nB,1,heavy\nC,1,\n', mode))).toEqual([
      { line: 2, key: 'A', error: 'line 3, column weight: more than 10' },
      { line: 4, key: 'B', error: 'line 4, column weight: "heavy" is not a number' },
      { line: 5, value: { id: 'C', items: [{ n: 1 }], weights: [null] } },
    ]);
  });

  it('does not list optional extra columns in the header error of a plain file', async () => {
    await expect(all('id\nA\n', mode)).rejects.toThrow('line 1: the header lacks column n (columns: id,n)');
  });
});
