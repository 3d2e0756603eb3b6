import { describe, expect, it } from 'vitest';
import { MalformedPageError, PageTooLargeError, readFeedPage, type PageLimits } from '../../src/feed/page-reader.js';
import { UnreadableRecord } from '../../src/records/unreadable-record.js';

const LIMITS: PageLimits = { maxRecordBytes: 64 * 1024, maxPageBytes: 1024 * 1024 };

/** The body as chunks of `size` bytes (1 cuts inside every token, every string and every multi-byte character). */
async function* chunks(body: Buffer | string, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(body);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

const page = (items: string[], tail = ',"cursor":"c-2","hasMore":true') => `{"items":[${items.join(',')}]${tail}}`;
const nested = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

describe('feed page reader', () => {
  describe('when every record can be read', () => {
    const records = [
      { orderId: 'WEB-1', note: 'brackets ] } [ { and "quotes" and \\ in strings', lines: [{ q: 1 }] },
      { orderId: 'WEB-2', name: 'Größe ☕ \u2028', deep: { a: { b: [1, [2, [3]]] } } },
      'a string record',
      42,
      null,
      [],
      {},
    ];
    const body = `  {"meta":{"items":[9],"cursor":"not this one"},"items": [ ${records.map((r) => JSON.stringify(r)).join(' , ')} ] ,"cursor":"c-\\"2\\"","hasMore":false}\n`;

    it.each([1, 3, 7, 64, 1 << 16])('reads the same records, cursor and hasMore as JSON.parse, in chunks of %i bytes', async (size) => {
      const read = await readFeedPage(chunks(body, size), LIMITS);
      const whole = JSON.parse(body) as { items: unknown[]; cursor: string; hasMore: boolean };
      expect(read).toEqual({ items: whole.items, cursor: whole.cursor, hasMore: whole.hasMore });
    });
  });

  describe('when one record cannot be read', () => {
    const good = (n: number) => JSON.stringify({ orderId: `WEB-${n}`, origin: 'Main Warehouse' });
    const cases: Array<[string, Buffer | string, RegExp]> = [
      ['nested 10,000 levels deep', `{"orderId":"WEB-DEEP","lines":${nested(10_000)}}`, /^nested deeper than 32 levels$/],
      ['nested 33 levels deep', `{"orderId":"WEB-DEEP","lines":${nested(32)}}`, /^nested deeper than 32 levels$/],
      [
        'larger than the cap',
        `{"orderId":"WEB-BIG","pad":"${'x'.repeat(100 * 1024)}"}`,
        /^is 102\d+ bytes, larger than the cap of 65536 bytes \(MAX_RECORD_BYTES\)$/,
      ],
      [
        'not UTF-8',
        Buffer.concat([Buffer.from('{"orderId":"WEB-BAD-UTF8","origin":"M'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
        /^is not valid UTF-8$/,
      ],
      ['not JSON', '{"orderId":"WEB-NOT-JSON","origin":tru}', /^not valid JSON/],
    ];

    it.each(cases)(
      'when it is %s, puts an UnreadableRecord in its place with the reason, and reads the rest',
      async (_name, bad, reason) => {
        const body = Buffer.concat([
          Buffer.from(`{"items":[${good(1)},`),
          Buffer.from(bad),
          Buffer.from(`,${good(2)}],"cursor":"c-9","hasMore":true}`),
        ]);
        for (const size of [5, 4096]) {
          const read = await readFeedPage(chunks(body, size), LIMITS);
          const items = read.items as unknown[];
          expect(items).toHaveLength(3);
          expect(items[0]).toEqual(JSON.parse(good(1)));
          expect(items[2]).toEqual(JSON.parse(good(2)));
          expect(read).toMatchObject({ cursor: 'c-9', hasMore: true });
          const u = items[1] as UnreadableRecord;
          expect(u).toBeInstanceOf(UnreadableRecord);
          expect(u.reason).toMatch(reason);
          expect(u.bytes).toBe(Buffer.byteLength(bad));
          expect(u.hash).toMatch(/^[0-9a-f]{64}$/);
          // Its start is kept (to find its key), never all of a large record.
          expect(u.head.startsWith('{"orderId":"WEB-')).toBe(true);
          expect(u.head.length).toBeLessThanOrEqual(4096);
        }
      },
    );

    it('gives the same hash to the same bytes, whatever the chunks', async () => {
      const bad = `{"orderId":"WEB-BIG","pad":"${'y'.repeat(70 * 1024)}"}`;
      const hashes = await Promise.all(
        [1000, 4096, 1 << 20].map(
          async (size) => ((await readFeedPage(chunks(page([bad]), size), LIMITS)).items as UnreadableRecord[])[0]!.hash,
        ),
      );
      expect(new Set(hashes).size).toBe(1);
    });
  });

  describe('when the records of a page pass the page cap', () => {
    it('stops with PageTooLargeError', async () => {
      const items = Array.from({ length: 40 }, (_, n) => JSON.stringify({ orderId: `WEB-${n}`, pad: 'z'.repeat(30 * 1024) }));
      await expect(readFeedPage(chunks(page(items), 8192), LIMITS)).rejects.toBeInstanceOf(PageTooLargeError);
    });

    it('does not count records over the record cap, which are read past', async () => {
      const big = JSON.stringify({ orderId: 'WEB-HUGE', pad: 'h'.repeat(3 * 1024 * 1024) });
      const read = await readFeedPage(chunks(page([big, JSON.stringify({ orderId: 'WEB-1' })]), 64 * 1024), LIMITS);
      expect((read.items as unknown[])[1]).toEqual({ orderId: 'WEB-1' });
    });
  });

  describe('when the answer is not a page', () => {
    it.each([
      ['an array', '[1,2]'],
      ['HTML', '<html>down</html>'],
      ['cut short', '{"items":[{"orderId":"WEB-1"}],"cursor":"c'],
      ['followed by more text', '{"items":[],"cursor":"c","hasMore":false} {"items":[]}'],
    ])('fails when it is %s', async (_name, body) => {
      await expect(readFeedPage(chunks(body, 4), LIMITS)).rejects.toBeInstanceOf(MalformedPageError);
    });

    it('leaves a missing or wrong field to the page check', async () => {
      expect(await readFeedPage(chunks('{"items":"x","hasMore":1}', 3), LIMITS)).toEqual({ items: 'x', cursor: undefined, hasMore: 1 });
    });
  });
});
