import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { defaults } from '../../config/defaults.js';
import { HEAD_CHARS, notUtf8, QUOTE_CHARS, tooLarge } from '../records/unreadable-record.js';

/**
 * One line of an NDJSON file: its parsed value (and its text, trimmed), or why it could not be read (with the start
 * of its text: `text` to quote, `head` to find its key in, or the key when the reader knows it). Lines count from 1.
 * The CSV readers (csv-records.ts) give their records and rows in the same form.
 */
export type NdjsonEntry =
  { line: number; value: unknown; text: string } | { line: number; error: string; text: string; head: string; key?: string };

export interface ReadNdjsonOptions {
  /** What `-` reads. Default process.stdin. */
  stdin?: Readable;
  /** A longer line (in bytes) is reported as an error and skipped, so one line cannot exhaust memory. Default defaults.maxRecordBytes. */
  maxLineBytes?: number;
}

const fatal = new TextDecoder('utf-8', { fatal: true });
const lenient = new TextDecoder('utf-8');
const NL = 10;

function unreadable(line: number, error: string, head: string): NdjsonEntry {
  return { line, error, text: head.slice(0, QUOTE_CHARS), head: head.slice(0, HEAD_CHARS) };
}

/** A line's text, trimmed, as a value or why not; undefined for a blank line. */
function parseLine(line: number, raw: string): NdjsonEntry | undefined {
  const text = raw.trim();
  if (!text) return undefined;
  try {
    return { line, value: JSON.parse(text), text };
  } catch (err) {
    return unreadable(line, `not valid JSON (${(err as Error).message})`, text);
  }
}

/** A line's bytes: invalid UTF-8 makes it a bad line (never silently replaced). */
function readLine(line: number, bytes: Uint8Array): NdjsonEntry | undefined {
  let raw: string;
  try {
    raw = fatal.decode(bytes);
  } catch {
    return unreadable(line, notUtf8, lenient.decode(bytes.subarray(0, HEAD_CHARS)).trim());
  }
  return parseLine(line, raw);
}

/**
 * Streams an NDJSON file (a path, `-` for stdin, or a Readable) line by line, in constant memory:
 * the source is read chunk by chunk as the caller pulls. Blank lines are skipped; a line that is not JSON, not
 * UTF-8 or longer than the cap is reported with its number and reading goes on. (JSON.parse takes any depth;
 * the importer refuses a record nested too deep when it gives it its job id.)
 */
export async function* readNdjson(source: string | Readable, opts: ReadNdjsonOptions = {}): AsyncGenerator<NdjsonEntry> {
  for await (const entries of readNdjsonChunks(source, opts)) yield* entries;
}

/**
 * The lines of a byte stream as entries, chunk by chunk: the start of a line that goes on in the next chunk is
 * carried; past the cap only its head is kept and its size counted, so one line cannot exhaust memory.
 */
class NdjsonLines {
  private line = 0;
  private carried: Buffer[] = [];
  private carriedBytes = 0;
  private oversize: { head: Buffer; bytes: number } | undefined;

  constructor(private readonly max: number) {}

  /** The entries of the lines this chunk completes. */
  chunk(buf: Buffer): NdjsonEntry[] {
    const entries: NdjsonEntry[] = [];
    const first = buf.indexOf(NL);
    if (first === -1) {
      this.carry(buf);
      return entries;
    }
    let start = 0;
    if (this.carriedBytes > 0 || this.oversize) {
      this.carry(buf.subarray(0, first));
      const entry = this.takeCarried();
      if (entry) entries.push(entry);
      start = first + 1;
    }
    const last = buf.lastIndexOf(NL);
    if (last >= start) this.linesOf(buf.subarray(start, last), entries);
    this.carry(buf.subarray(last + 1));
    return entries;
  }

  /** The last line, when the input does not end with a line break. */
  end(): NdjsonEntry[] {
    if (this.carriedBytes === 0 && !this.oversize) return [];
    const entry = this.takeCarried();
    return entry ? [entry] : [];
  }

  private carry(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (this.oversize) {
      this.oversize.bytes += bytes.length;
    } else if (this.carriedBytes + bytes.length > this.max) {
      const all = Buffer.concat([...this.carried, bytes.subarray(0, HEAD_CHARS)]);
      this.oversize = { head: all.subarray(0, HEAD_CHARS), bytes: this.carriedBytes + bytes.length };
      this.carried = [];
      this.carriedBytes = 0;
    } else {
      // A copy: the source may reuse its buffer for the next chunk.
      this.carried.push(Buffer.from(bytes));
      this.carriedBytes += bytes.length;
    }
  }

  private takeCarried(): NdjsonEntry | undefined {
    this.line++;
    const big = this.oversize;
    const bytes = this.carried.length === 1 ? this.carried[0]! : Buffer.concat(this.carried);
    this.carried = [];
    this.carriedBytes = 0;
    this.oversize = undefined;
    if (big) return unreadable(this.line, `${tooLarge(big.bytes, this.max)}; skipped`, lenient.decode(big.head).trim());
    return readLine(this.line, bytes);
  }

  /** The complete lines of a stretch of bytes with no line longer than the cap: decoded at once when all is UTF-8. */
  private linesOf(region: Buffer, entries: NdjsonEntry[]): void {
    let text: string | undefined;
    if (region.length <= this.max) {
      try {
        text = fatal.decode(region);
      } catch {
        text = undefined;
      }
    }
    if (text === undefined) return this.linesOfBytes(region, entries);
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      const entry = parseLine(++this.line, nl === -1 ? text.slice(start) : text.slice(start, nl));
      if (entry) entries.push(entry);
      if (nl === -1) return;
      start = nl + 1;
    }
  }

  /** Some line is not UTF-8 or may be too long: line by line. */
  private linesOfBytes(region: Buffer, entries: NdjsonEntry[]): void {
    let start = 0;
    for (;;) {
      const nl = region.indexOf(NL, start);
      const bytes = nl === -1 ? region.subarray(start) : region.subarray(start, nl);
      this.line++;
      const entry =
        bytes.length > this.max
          ? unreadable(this.line, `${tooLarge(bytes.length, this.max)}; skipped`, lenient.decode(bytes.subarray(0, HEAD_CHARS)).trim())
          : readLine(this.line, bytes);
      if (entry) entries.push(entry);
      if (nl === -1) return;
      start = nl + 1;
    }
  }
}

/**
 * As readNdjson, but the lines of each chunk read come together (an array per chunk, possibly empty): one await per
 * chunk rather than per line, for callers that go through millions of lines.
 */
export async function* readNdjsonChunks(source: string | Readable, opts: ReadNdjsonOptions = {}): AsyncGenerator<NdjsonEntry[]> {
  const input = typeof source !== 'string' ? source : source === '-' ? (opts.stdin ?? process.stdin) : createReadStream(source);
  const lines = new NdjsonLines(opts.maxLineBytes ?? defaults.maxRecordBytes);
  try {
    for await (const chunk of input) yield lines.chunk(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    const last = lines.end();
    if (last.length) yield last;
  } finally {
    // A caller that stops early (break) must not leave the file open.
    if (typeof source === 'string' && source !== '-') (input as ReturnType<typeof createReadStream>).destroy();
  }
}
