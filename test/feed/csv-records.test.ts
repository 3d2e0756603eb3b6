import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { orderKind } from '../../jobs/orders/order-kind.js';
import { stockCountKind } from '../../jobs/stock/stock-count-kind.js';
import { readCsvRecords, type CsvMode } from '../../src/feed/csv-records.js';
import { readCsvChunks } from '../../src/feed/csv-rows.js';
import type { NdjsonEntry } from '../../src/feed/ndjson.js';

/** The text as a stream of chunks of `size` bytes, so rows and quoted values are cut across chunks. */
const chunked = (text: string, size = 7) => {
  const bytes = Buffer.from(text);
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
  return Readable.from(parts);
};

async function all(text: string, mode: CsvMode, size?: number): Promise<NdjsonEntry[]> {
  const out: NdjsonEntry[] = [];
  for await (const entries of readCsvRecords(chunked(text, size), mode)) out.push(...entries);
  return out;
}

const counts: CsvMode = { layout: stockCountKind.record.csv!, keyField: 'countId' };
const orders: CsvMode = { layout: orderKind.record.csv!, keyField: 'orderId' };
const strip = (entries: NdjsonEntry[]) =>
  entries.map((e) => ('error' in e ? { line: e.line, error: e.error, key: e.key } : { line: e.line, value: e.value }));

describe('reading CSV rows (RFC 4180)', () => {
  it('reads quoted commas, doubled quotes, line breaks in quotes and CRLF, naming the line each row begins on', async () => {
    const rows = [];
    const text = '\uFEFFa,b\r\n"x, y","say ""hi"""\r\n"two\nlines",z\r\n\r\nlast,"",\n';
    for await (const chunk of readCsvChunks(chunked(text, 3))) rows.push(...chunk);
    expect(rows).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['x, y', 'say "hi"'] },
      { line: 3, fields: ['two\nlines', 'z'] },
      { line: 6, fields: ['last', '', ''] },
    ]);
  });

  it('reports a row that breaks the quoting rules with its line, and reads on from the next line', async () => {
    const rows = [];
    const text = 'a,b\n"x"y,1\nq"uote,2\nok,3\n"never closed,4\nlost,5\n';
    for await (const chunk of readCsvChunks(chunked(text))) rows.push(...chunk);
    expect(rows).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, error: 'column 1: text after a closing quote' },
      { line: 3, error: 'column 1: a quote inside an unquoted value (quote the whole value)' },
      { line: 4, fields: ['ok', '3'] },
      { line: 5, error: 'a quoted value is not closed before the end of the file' },
    ]);
  });

  it('refuses a row that is not UTF-8 rather than changing its bytes', async () => {
    const rows = [];
    const input = Readable.from([Buffer.from('a\n'), Buffer.from([0x66, 0xff, 0x0a]), Buffer.from('b\n')]);
    for await (const chunk of readCsvChunks(input)) rows.push(...chunk);
    expect(rows).toEqual([
      { line: 1, fields: ['a'] },
      { line: 2, error: 'is not valid UTF-8' },
      { line: 3, fields: ['b'] },
    ]);
  });
});

describe('gathering a count sheet into counts', () => {
  it('makes one count of the rows of one countId, numbers as numbers, whatever the column order', async () => {
    const sheet = [
      'location,countId,productId,quantity,countDate',
      '"Main Warehouse / A-01",C-1,MUG-BLUE,40,2026-11-21',
      '"Main Warehouse / A-01",C-1,"SKU-0010",7.5,2026-11-21',
      'Main Warehouse / A-02,C-2,MUG-RED,0,2026-11-21',
    ].join('\n');
    expect(strip(await all(sheet, counts))).toEqual([
      {
        line: 2,
        value: {
          countId: 'C-1',
          location: 'Main Warehouse / A-01',
          countDate: '2026-11-21',
          items: [
            { productId: 'MUG-BLUE', quantity: 40, line: 2 },
            { productId: 'SKU-0010', quantity: 7.5, line: 3 },
          ],
        },
      },
      {
        line: 4,
        value: {
          countId: 'C-2',
          location: 'Main Warehouse / A-02',
          countDate: '2026-11-21',
          items: [{ productId: 'MUG-RED', quantity: 0, line: 4 }],
        },
      },
    ]);
  });

  it('fails alone a row that says a number that is none, and the record of another head, naming the line and the column', async () => {
    const sheet = [
      'countId,location,countDate,productId,quantity',
      'C-1,Main Warehouse / A-01,2026-11-21,MUG-BLUE,forty',
      'C-1,Main Warehouse / A-01,2026-11-21,MUG-RED,1',
      'C-2,Main Warehouse / A-02,2026-11-21,MUG-BLUE,3',
      'C-3,Main Warehouse / A-03,2026-11-21,MUG-BLUE,3',
      'C-3,Main Warehouse / A-04,2026-11-21,MUG-RED,3',
      'C-4,Main Warehouse / A-05,2026-11-21,,3',
      ',Main Warehouse / A-05,2026-11-21,MUG-RED,3',
      'C-5,Main Warehouse / A-05,2026-11-21,MUG-RED',
    ].join('\n');
    expect(strip(await all(sheet, counts))).toEqual([
      // A count's row stands alone: it fails as C-1~MUG-BLUE, and C-1 is its other row.
      { line: 2, error: 'line 2, column quantity: "forty" is not a number', key: 'C-1~MUG-BLUE' },
      {
        line: 2,
        value: {
          countId: 'C-1',
          location: 'Main Warehouse / A-01',
          countDate: '2026-11-21',
          items: [{ productId: 'MUG-RED', quantity: 1, line: 3 }],
        },
      },
      {
        line: 4,
        value: {
          countId: 'C-2',
          location: 'Main Warehouse / A-02',
          countDate: '2026-11-21',
          items: [{ productId: 'MUG-BLUE', quantity: 3, line: 4 }],
        },
      },
      {
        line: 5,
        error: 'line 6, column location: "Main Warehouse / A-04" differs from "Main Warehouse / A-03" on line 5, the first row of C-3',
        key: 'C-3',
      },
      // Rows that fail alone come as they are read; C-4 (its one row bad: it fails as itself) when the file ends.
      { line: 8, error: 'line 8, column countId: is empty', key: undefined },
      { line: 9, error: 'has 4 fields; the header has 5', key: undefined },
      { line: 7, error: 'line 7, column productId: is empty', key: 'C-4' },
    ]);
  });

  it('fails a record one of whose rows cannot be read, as well as that row', async () => {
    const sheet = [
      'countId,location,countDate,productId,quantity',
      'C-1,L / A,2026-11-21,P1,1',
      'C-1,"L / A"x,2026-11-21,P2,2',
      'C-1,L / A,2026-11-21,P3,3',
    ];
    expect(strip(await all(sheet.join('\n'), counts))).toEqual([
      { line: 3, error: 'column 2: text after a closing quote', key: undefined },
      { line: 2, error: 'line 3, among the rows of C-1: is a bad row (see its own error)', key: 'C-1' },
    ]);
  });
});

describe('gathering an order export into orders', () => {
  it('makes one order per orderId with a line per row; optional columns may be absent or empty', async () => {
    const text = [
      'orderId,orderDate,origin,productId,quantity,unitPrice,location',
      'WEB-1,2026-11-20T14:03:11,Main Warehouse,MUG-BLUE,2,12.5,"Main Warehouse / A-01"',
      'WEB-1,2026-11-20T14:03:11,Main Warehouse,SKU-0003,1,4,A-02',
      'WEB-2,,Main Warehouse,MUG-RED,1,"9.90",A-03',
    ].join('\r\n');
    expect(strip(await all(text, orders, 5))).toEqual([
      {
        line: 2,
        value: {
          orderId: 'WEB-1',
          orderDate: '2026-11-20T14:03:11',
          origin: 'Main Warehouse',
          lines: [
            { productId: 'MUG-BLUE', quantity: 2, unitPrice: 12.5, location: 'Main Warehouse / A-01' },
            { productId: 'SKU-0003', quantity: 1, unitPrice: 4, location: 'A-02' },
          ],
        },
      },
      {
        line: 4,
        value: {
          orderId: 'WEB-2',
          origin: 'Main Warehouse',
          lines: [{ productId: 'MUG-RED', quantity: 1, unitPrice: 9.9, location: 'A-03' }],
        },
      },
    ]);
  });

  it('refuses a file whose header lacks a column the layout needs, or has none', async () => {
    await expect(all('orderId,origin,productId,quantity,location\nA,B,C,1,D\n', orders)).rejects.toThrow(
      'line 1: the header lacks column unitPrice (columns: orderId,orderDate,origin,shipmentIdUser,productId,quantity,unitPrice,location)',
    );
    await expect(all('', orders)).rejects.toThrow('line 1: the file is empty; a CSV file starts with a header row naming its columns');
  });

  it('gives each row as an object keyed by the header, for a transform', async () => {
    expect(strip(await all('Name,Qty\n"#1001",2\n', { rows: true }))).toEqual([{ line: 2, value: { Name: '#1001', Qty: '2' } }]);
  });
});
