import { PageScanner, type ReadPage, type PageLimits } from './page-scanner.js';

export { MalformedPageError, PageTooLargeError, type PageLimits, type ReadPage } from './page-scanner.js';

/**
 * Reads a feed page `{ "items": [...], "cursor": ..., "hasMore": ... }` from its body bytes without ever parsing it
 * whole: each record's bytes are found by a scan of the JSON structure (strings, brackets) and parsed on their own.
 * So a record too large, nested too deep, not UTF-8 or not JSON fails alone (an UnreadableRecord in its place) and
 * the rest of the page and its cursor are read as usual; a record over the cap is read past without being held.
 * The scan is src/feed/page-scanner.ts.
 */
export async function readFeedPage(body: AsyncIterable<Uint8Array>, limits: PageLimits): Promise<ReadPage> {
  const scanner = new PageScanner(limits);
  for await (const piece of body) scanner.scan(Buffer.isBuffer(piece) ? piece : Buffer.from(piece));
  return scanner.page();
}
