import { createHash, type Hash } from 'node:crypto';
import { defaults } from '../../config/defaults.js';
import { HEAD_CHARS, notUtf8, tooDeep, tooLarge, UnreadableRecord } from '../records/unreadable-record.js';

export interface PageLimits {
  /** Largest record in bytes; a larger one is read past (not held) and becomes an UnreadableRecord. */
  maxRecordBytes: number;
  /** Most bytes of records held from one page; past it reading stops with PageTooLargeError. */
  maxPageBytes: number;
  /** Deepest nesting of a record. Default defaults.maxRecordDepth. */
  maxDepth?: number;
}

/** The records of a page held more than maxPageBytes: ask for fewer at a time. */
export class PageTooLargeError extends Error {
  readonly code = 'PAGE_TOO_LARGE';
  constructor(readonly maxPageBytes: number) {
    super(`its records pass the cap of ${maxPageBytes} bytes (FEED_MAX_PAGE_BYTES)`);
    this.name = 'PageTooLargeError';
  }
}

/** The answer is not a JSON object (or ends early). */
export class MalformedPageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedPageError';
  }
}

/** A page as read: records (or UnreadableRecord where one could not be read), and the raw cursor and hasMore, to be checked. */
export interface ReadPage {
  /** The records, in order; whatever `items` was when it is not an array. */
  items: unknown;
  cursor: unknown;
  hasMore: unknown;
}

const fatal = new TextDecoder('utf-8', { fatal: true });
const lenient = new TextDecoder('utf-8');
/** Longest value of a page field kept (cursor, hasMore). */
const MAX_FIELD_BYTES = 64 * 1024;
const [QUOTE, BACKSLASH, COMMA, COLON, LBRACE, RBRACE, LBRACKET, RBRACKET] = [0x22, 0x5c, 0x2c, 0x3a, 0x7b, 0x7d, 0x5b, 0x5d];
const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09 || b === 0xef || b === 0xbb || b === 0xbf;

interface Capture {
  kind: 'key' | 'field' | 'record';
  parts: Buffer[];
  bytes: number;
  /** Deepest nesting inside a record. */
  depth: number;
  /** Set once a record passes the cap: its bytes are hashed, not held. */
  hash?: Hash;
  head?: Buffer;
}

/**
 * Reads a feed page `{ "items": [...], "cursor": ..., "hasMore": ... }` from its body bytes without ever parsing it
 * whole: each record's bytes are found by a scan of the JSON structure (strings, brackets) and parsed on their own.
 * So a record too large, nested too deep, not UTF-8 or not JSON fails alone (an UnreadableRecord in its place) and
 * the rest of the page and its cursor are read as usual; a record over the cap is read past without being held.
 */
export async function readFeedPage(body: AsyncIterable<Uint8Array>, limits: PageLimits): Promise<ReadPage> {
  const maxDepth = limits.maxDepth ?? defaults.maxRecordDepth;
  const items: unknown[] = [];
  const fields: Record<string, unknown> = {};
  let held = 0;
  let depth = 0;
  let inString = false;
  let escape = false;
  let expectKey = false;
  let expectValue = false;
  let inItems = false;
  let sawItems = false;
  let done = false;
  let key = '';
  let cap: Capture | undefined;
  let capStart = 0;

  const append = (cp: Capture, seg: Buffer) => {
    cp.bytes += seg.length;
    if (cp.hash) return void cp.hash.update(seg);
    if (cp.kind === 'record' && cp.bytes > limits.maxRecordBytes) {
      cp.head = Buffer.concat([...cp.parts, seg]).subarray(0, HEAD_CHARS);
      cp.hash = createHash('sha256');
      for (const p of cp.parts) cp.hash.update(p);
      cp.hash.update(seg);
      cp.parts = [];
      return;
    }
    if (cp.kind !== 'record' && cp.bytes > (cp.kind === 'key' ? 1024 : MAX_FIELD_BYTES)) {
      if (cp.kind === 'field') throw new MalformedPageError(`its "${key}" is longer than ${MAX_FIELD_BYTES} bytes`);
      return;
    }
    cp.parts.push(seg);
    if (cp.kind === 'record' && held + cp.bytes > limits.maxPageBytes) throw new PageTooLargeError(limits.maxPageBytes);
  };
  const start = (kind: Capture['kind'], at: number) => {
    cap = { kind, parts: [], bytes: 0, depth: 0 };
    capStart = at;
  };
  const finish = (chunk: Buffer, end: number) => {
    const cp = cap!;
    cap = undefined;
    append(cp, chunk.subarray(capStart, end));
    if (cp.kind === 'key') key = cp.bytes > 1024 ? '' : String(parseOr(Buffer.concat(cp.parts), ''));
    else if (cp.kind === 'field') fields[key] = parseOr(Buffer.concat(cp.parts), undefined);
    else items.push(recordOf(cp));
  };
  const recordOf = (cp: Capture): unknown => {
    if (cp.hash)
      return new UnreadableRecord(
        tooLarge(cp.bytes, limits.maxRecordBytes),
        lenient.decode(cp.head).trim(),
        cp.hash.digest('hex'),
        cp.bytes,
      );
    const bytes = Buffer.concat(cp.parts);
    held += bytes.length;
    const bad = (reason: string) =>
      new UnreadableRecord(
        reason,
        lenient.decode(bytes.subarray(0, HEAD_CHARS)).trim(),
        createHash('sha256').update(bytes).digest('hex'),
        bytes.length,
      );
    if (cp.depth > maxDepth) return bad(tooDeep(maxDepth));
    let text: string;
    try {
      text = fatal.decode(bytes);
    } catch {
      return bad(notUtf8);
    }
    try {
      return JSON.parse(text);
    } catch (err) {
      return bad(`not valid JSON (${(err as Error).message})`);
    }
  };
  /** Something starts at `at` (depth before it is counted): a record of the items, or the value of a page field. */
  const valueStarts = (at: number) => {
    if (cap) return;
    if (depth === 2 && inItems) start('record', at);
    else if (depth === 1 && expectValue) {
      expectValue = false;
      // `items` lands here only when it is not an array: kept, so the page check can say what it is.
      if (key === 'cursor' || key === 'hasMore' || key === 'items') start('field', at);
    }
  };

  for await (const piece of body) {
    const chunk = Buffer.isBuffer(piece) ? piece : Buffer.from(piece);
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (inString) {
        if (escape) {
          escape = false;
          continue;
        }
        // Jump to the next quote or backslash (native search: long strings are most of a large record).
        let quote = chunk.indexOf(QUOTE, i);
        if (quote === -1) quote = chunk.length;
        const backslash = chunk.subarray(i, quote).indexOf(BACKSLASH);
        if (backslash !== -1) {
          escape = true;
          i += backslash;
        } else if (quote === chunk.length) {
          i = chunk.length;
        } else {
          i = quote;
          inString = false;
          if (cap?.kind === 'key') finish(chunk, i + 1);
        }
        continue;
      }
      if (done) {
        if (!isSpace(b)) throw new MalformedPageError('it has text after its JSON object');
        continue;
      }
      switch (b) {
        case QUOTE:
          if (depth === 1 && expectKey) {
            expectKey = false;
            start('key', i);
          } else valueStarts(i);
          inString = true;
          break;
        case LBRACE:
        case LBRACKET:
          if (depth === 0) {
            if (b !== LBRACE) throw new MalformedPageError('it is not a JSON object');
            depth = 1;
            expectKey = true;
            break;
          }
          if (depth === 1 && expectValue && key === 'items' && b === LBRACKET) {
            expectValue = false;
            inItems = true;
            sawItems = true;
          } else valueStarts(i);
          depth++;
          if (cap?.kind === 'record') cap.depth = Math.max(cap.depth, depth - 2);
          break;
        case RBRACE:
        case RBRACKET:
          depth--;
          if (depth === 1 && inItems) {
            if (cap) finish(chunk, i);
            inItems = false;
          } else if (depth === 0) {
            if (cap) finish(chunk, i);
            done = true;
          } else if (depth < 0) throw new MalformedPageError('its brackets do not match');
          break;
        case COMMA:
          if (depth === 1) {
            if (cap) finish(chunk, i);
            expectKey = true;
          } else if (depth === 2 && inItems && cap) finish(chunk, i);
          break;
        case COLON:
          if (depth === 1) expectValue = true;
          break;
        default:
          if (!isSpace(b)) {
            if (depth === 0) throw new MalformedPageError('it is not a JSON object');
            valueStarts(i);
          }
      }
    }
    // What is being read goes on in the next chunk: keep this chunk's part of it (a copy: buffers may be reused).
    if (cap) append(cap, Buffer.from(chunk.subarray(capStart)));
    capStart = 0;
  }
  if (!done || inString) throw new MalformedPageError('it ends before its JSON object does');
  return { items: sawItems ? items : fields.items, cursor: fields.cursor, hasMore: fields.hasMore };
}

function parseOr<T>(bytes: Buffer, fallback: T): unknown {
  try {
    return JSON.parse(lenient.decode(bytes));
  } catch {
    return fallback;
  }
}
