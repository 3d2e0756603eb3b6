import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readNdjson, type NdjsonEntry } from '../../src/feed/ndjson.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ndjson-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function collect(source: Parameters<typeof readNdjson>[0]): Promise<NdjsonEntry[]> {
  const out: NdjsonEntry[] = [];
  for await (const e of readNdjson(source)) out.push(e);
  return out;
}

describe('ndjson reader', () => {
  describe('when every line is a record', () => {
    it('yields each value with its line number and trimmed text, skipping blank lines and CRLF endings', async () => {
      const file = join(dir, 'good.ndjson');
      await writeFile(file, '{"a":1}\r\n\n{"a":2}\n  \n{"a":3}');
      expect(await collect(file)).toEqual([
        { line: 1, value: { a: 1 }, text: '{"a":1}' },
        { line: 3, value: { a: 2 }, text: '{"a":2}' },
        { line: 5, value: { a: 3 }, text: '{"a":3}' },
      ]);
    });
  });

  describe('when a line in the middle is malformed', () => {
    it('reports it with its number and reads on', async () => {
      const entries = await collect(Readable.from(['{"a":1}\n{"a":', '2}\n{oops\n{"a":3}\n']));
      expect(entries).toHaveLength(4);
      expect(entries[0]).toEqual({ line: 1, value: { a: 1 }, text: '{"a":1}' });
      expect(entries[1]).toEqual({ line: 2, value: { a: 2 }, text: '{"a":2}' });
      expect(entries[2]).toMatchObject({ line: 3, text: '{oops' });
      expect((entries[2] as { error: string }).error).toMatch(/^not valid JSON/);
      expect(entries[3]).toEqual({ line: 4, value: { a: 3 }, text: '{"a":3}' });
    });
  });

  describe('when a multi-byte character is split across chunks', () => {
    it('decodes it whole', async () => {
      const bytes = Buffer.from('{"name":"Größe ☕"}\n');
      const cut = bytes.indexOf(0xe2) + 1; // inside the 3-byte ☕
      const entries = await collect(Readable.from([bytes.subarray(0, cut), bytes.subarray(cut)]));
      expect(entries).toEqual([{ line: 1, value: { name: 'Größe ☕' }, text: '{"name":"Größe ☕"}' }]);
    });
  });

  describe('when a line cannot be read', () => {
    const good = (n: number) => `{"orderId":"WEB-${n}"}`;
    const badUtf8 = Buffer.concat([Buffer.from('{"orderId":"WEB-X","origin":"M'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const lines = [
      Buffer.from(good(1)),
      badUtf8,
      Buffer.from(`{"orderId":"WEB-BIG","pad":"${'x'.repeat(5000)}"}`),
      Buffer.from(`{"orderId":"WEB-DEEP","lines":${'['.repeat(20_000)}${']'.repeat(20_000)}}`),
      Buffer.from(good(5)),
    ];
    const file = Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')]));

    it.each([7, 1000, 1 << 20])('reports each with its number and why, never replacing bytes, in chunks of %i bytes', async (size) => {
      const pieces = Array.from({ length: Math.ceil(file.length / size) }, (_, k) => file.subarray(k * size, (k + 1) * size));
      const entries: NdjsonEntry[] = [];
      for await (const e of readNdjson(Readable.from(pieces), { maxLineBytes: 4096 })) entries.push(e);
      expect(entries.map((e) => e.line)).toEqual([1, 2, 3, 4, 5]);
      expect(entries[0]).toEqual({ line: 1, value: { orderId: 'WEB-1' }, text: good(1) });
      expect(entries[1]).toMatchObject({ line: 2, error: 'is not valid UTF-8' });
      expect(entries[2]).toMatchObject({
        line: 3,
        error: `is ${lines[2]!.length} bytes, larger than the cap of 4096 bytes (MAX_RECORD_BYTES); skipped`,
      });
      expect(entries[3]).toMatchObject({
        line: 4,
        error: `is ${lines[3]!.length} bytes, larger than the cap of 4096 bytes (MAX_RECORD_BYTES); skipped`,
      });
      expect(entries[4]).toEqual({ line: 5, value: { orderId: 'WEB-5' }, text: good(5) });
      for (const e of entries.slice(1, 4)) {
        // Its start, to quote (120 characters) and to find its key in.
        expect((e as { head: string }).head).toMatch(/^\{"orderId":"WEB-/);
        expect(e.text.length).toBeLessThanOrEqual(120);
      }
    });
  });

  describe('when the file is large', () => {
    it('streams it: the first records arrive before the source is read to the end', async () => {
      const total = 50_000;
      let produced = 0;
      // A source that makes lines only as fast as they are pulled.
      const source = new Readable({
        highWaterMark: 16 * 1024,
        read() {
          if (produced >= total) return void this.push(null);
          const lines: string[] = [];
          for (let i = 0; i < 100 && produced < total; i++)
            lines.push(JSON.stringify({ orderId: `WEB-${++produced}`, pad: 'x'.repeat(100) }));
          this.push(`${lines.join('\n')}\n`);
        },
      });
      let count = 0;
      let producedAtFirst = 0;
      let maxAhead = 0;
      let bad = 0;
      for await (const e of readNdjson(source)) {
        count++;
        if (count === 1) producedAtFirst = produced;
        maxAhead = Math.max(maxAhead, produced - count);
        if (!('value' in e)) bad++;
      }
      expect(count).toBe(total);
      expect(bad).toBe(0);
      expect(producedAtFirst).toBeLessThan(1_000);
      // Never more than a few buffers' worth of lines read ahead of the consumer.
      expect(maxAhead).toBeLessThan(2_000);
    });
  });

  describe('when the caller stops early', () => {
    it('stops reading the file', async () => {
      const file = join(dir, 'many.ndjson');
      await writeFile(file, Array.from({ length: 1000 }, (_, i) => JSON.stringify({ i })).join('\n'));
      const got: NdjsonEntry[] = [];
      for await (const e of readNdjson(file)) {
        got.push(e);
        if (got.length === 3) break;
      }
      expect(got.map((e) => e.line)).toEqual([1, 2, 3]);
    });
  });
});
