import { createHash, type Hash } from 'node:crypto';
import { defaults } from '../../config/defaults.js';
import { HEAD_CHARS, notUtf8, tooDeep, tooLarge, UnreadableRecord } from '../records/unreadable-record.js';

// The page's types and errors live here, beside the scanner that throws them; page-reader.ts exports them.

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
 * The scan of one feed page, fed its body chunk by chunk (`scan`), then asked for the page (`page`). It follows the
 * JSON structure (strings, brackets, commas, colons) and captures the bytes of each key, page field and record;
 * a record's bytes are parsed on their own once it ends.
 */
export class PageScanner {
  private readonly items: unknown[] = [];
  private readonly fields: Record<string, unknown> = {};
  private readonly maxDepth: number;
  /** Bytes of records held so far. */
  private held = 0;
  private depth = 0;
  private inString = false;
  private escape = false;
  private expectKey = false;
  private expectValue = false;
  private inItems = false;
  private sawItems = false;
  private done = false;
  /** The last key of the page object. */
  private key = '';
  /** What is being captured, and where it started in the current chunk. */
  private cap: Capture | undefined;
  private capStart = 0;

  constructor(private readonly limits: PageLimits) {
    this.maxDepth = limits.maxDepth ?? defaults.maxRecordDepth;
  }

  /** Scans the next chunk of the body. */
  scan(chunk: Buffer): void {
    for (let i = 0; i < chunk.length; i++) {
      if (this.inString) i = this.skipString(chunk, i);
      else if (this.done) {
        if (!isSpace(chunk[i]!)) throw new MalformedPageError('it has text after its JSON object');
      } else this.structure(chunk, i, chunk[i]!);
    }
    // What is being read goes on in the next chunk: keep this chunk's part of it (a copy: buffers may be reused).
    if (this.cap) this.append(this.cap, Buffer.from(chunk.subarray(this.capStart)));
    this.capStart = 0;
  }

  /** The page, once the whole body is scanned. */
  page(): ReadPage {
    if (!this.done || this.inString) throw new MalformedPageError('it ends before its JSON object does');
    const fields = this.fields;
    return { items: this.sawItems ? this.items : fields.items, cursor: fields.cursor, hasMore: fields.hasMore };
  }

  /**
   * Inside a string at `i`: jumps to the next quote or backslash (native search: long strings are most of a large
   * record), and returns where the scan goes on from (the loop steps past it).
   */
  private skipString(chunk: Buffer, i: number): number {
    if (this.escape) {
      this.escape = false;
      return i;
    }
    let quote = chunk.indexOf(QUOTE, i);
    if (quote === -1) quote = chunk.length;
    const backslash = chunk.subarray(i, quote).indexOf(BACKSLASH);
    if (backslash !== -1) {
      this.escape = true;
      return i + backslash;
    }
    if (quote === chunk.length) return chunk.length;
    this.inString = false;
    if (this.cap?.kind === 'key') this.finish(chunk, quote + 1);
    return quote;
  }

  /** One byte `b` of the JSON structure, at `i` of the chunk (outside any string). */
  private structure(chunk: Buffer, i: number, b: number): void {
    switch (b) {
      case QUOTE:
        if (this.depth === 1 && this.expectKey) {
          this.expectKey = false;
          this.start('key', i);
        } else this.valueStarts(i);
        this.inString = true;
        break;
      case LBRACE:
      case LBRACKET:
        if (this.depth === 0) {
          if (b !== LBRACE) throw new MalformedPageError('it is not a JSON object');
          this.depth = 1;
          this.expectKey = true;
          break;
        }
        if (this.depth === 1 && this.expectValue && this.key === 'items' && b === LBRACKET) {
          this.expectValue = false;
          this.inItems = true;
          this.sawItems = true;
        } else this.valueStarts(i);
        this.depth++;
        if (this.cap?.kind === 'record') this.cap.depth = Math.max(this.cap.depth, this.depth - 2);
        break;
      case RBRACE:
      case RBRACKET:
        this.depth--;
        if (this.depth === 1 && this.inItems) {
          if (this.cap) this.finish(chunk, i);
          this.inItems = false;
        } else if (this.depth === 0) {
          if (this.cap) this.finish(chunk, i);
          this.done = true;
        } else if (this.depth < 0) throw new MalformedPageError('its brackets do not match');
        break;
      case COMMA:
        if (this.depth === 1) {
          if (this.cap) this.finish(chunk, i);
          this.expectKey = true;
        } else if (this.depth === 2 && this.inItems && this.cap) this.finish(chunk, i);
        break;
      case COLON:
        if (this.depth === 1) this.expectValue = true;
        break;
      default:
        if (!isSpace(b)) {
          if (this.depth === 0) throw new MalformedPageError('it is not a JSON object');
          this.valueStarts(i);
        }
    }
  }

  /** Something starts at `at` (depth before it is counted): a record of the items, or the value of a page field. */
  private valueStarts(at: number): void {
    if (this.cap) return;
    if (this.depth === 2 && this.inItems) this.start('record', at);
    else if (this.depth === 1 && this.expectValue) {
      this.expectValue = false;
      // `items` lands here only when it is not an array: kept, so the page check can say what it is.
      if (this.key === 'cursor' || this.key === 'hasMore' || this.key === 'items') this.start('field', at);
    }
  }

  private start(kind: Capture['kind'], at: number): void {
    this.cap = { kind, parts: [], bytes: 0, depth: 0 };
    this.capStart = at;
  }

  /** The capture ends at `end` of the chunk: it becomes the key, a page field or a record. */
  private finish(chunk: Buffer, end: number): void {
    const cp = this.cap!;
    this.cap = undefined;
    this.append(cp, chunk.subarray(this.capStart, end));
    if (cp.kind === 'key') this.key = cp.bytes > 1024 ? '' : String(parseOr(Buffer.concat(cp.parts), ''));
    else if (cp.kind === 'field') this.fields[this.key] = parseOr(Buffer.concat(cp.parts), undefined);
    else this.items.push(this.recordOf(cp));
  }

  /** Adds a segment to a capture: held, or hashed once a record passes its cap; a page over its cap stops. */
  private append(cp: Capture, seg: Buffer): void {
    cp.bytes += seg.length;
    if (cp.hash) return void cp.hash.update(seg);
    if (cp.kind === 'record' && cp.bytes > this.limits.maxRecordBytes) {
      cp.head = Buffer.concat([...cp.parts, seg]).subarray(0, HEAD_CHARS);
      cp.hash = createHash('sha256');
      for (const p of cp.parts) cp.hash.update(p);
      cp.hash.update(seg);
      cp.parts = [];
      return;
    }
    if (cp.kind !== 'record' && cp.bytes > (cp.kind === 'key' ? 1024 : MAX_FIELD_BYTES)) {
      if (cp.kind === 'field') throw new MalformedPageError(`its "${this.key}" is longer than ${MAX_FIELD_BYTES} bytes`);
      return;
    }
    cp.parts.push(seg);
    if (cp.kind === 'record' && this.held + cp.bytes > this.limits.maxPageBytes) throw new PageTooLargeError(this.limits.maxPageBytes);
  }

  /** A captured record, parsed; an UnreadableRecord when it is too large, too deep, not UTF-8 or not JSON. */
  private recordOf(cp: Capture): unknown {
    if (cp.hash)
      return new UnreadableRecord(
        tooLarge(cp.bytes, this.limits.maxRecordBytes),
        lenient.decode(cp.head).trim(),
        cp.hash.digest('hex'),
        cp.bytes,
      );
    const bytes = Buffer.concat(cp.parts);
    this.held += bytes.length;
    if (cp.depth > this.maxDepth) return unreadable(tooDeep(this.maxDepth), bytes);
    let text: string;
    try {
      text = fatal.decode(bytes);
    } catch {
      return unreadable(notUtf8, bytes);
    }
    try {
      return JSON.parse(text);
    } catch (err) {
      return unreadable(`not valid JSON (${(err as Error).message})`, bytes);
    }
  }
}

function unreadable(reason: string, bytes: Buffer): UnreadableRecord {
  return new UnreadableRecord(
    reason,
    lenient.decode(bytes.subarray(0, HEAD_CHARS)).trim(),
    createHash('sha256').update(bytes).digest('hex'),
    bytes.length,
  );
}

function parseOr<T>(bytes: Buffer, fallback: T): unknown {
  try {
    return JSON.parse(lenient.decode(bytes));
  } catch {
    return fallback;
  }
}
