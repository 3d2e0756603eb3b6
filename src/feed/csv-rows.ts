import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { defaults } from '../../config/defaults.js';
import { tooLarge } from '../records/unreadable-record.js';

/**
 * One row of a CSV file (RFC 4180): its fields, or why it cannot be read. `line` is the file's line the row begins
 * on (a quoted field may hold line breaks); lines count from 1.
 */
export type CsvRow = { line: number; fields: string[] } | { line: number; error: string };

export interface ReadCsvOptions {
  /** What `-` reads. Default process.stdin. */
  stdin?: Readable;
  /** A longer row (in characters) is reported as an error and skipped. Default defaults.maxRecordBytes. */
  maxRowChars?: number;
}

type State = 'field' | 'quoted' | 'quoteInQuoted' | 'afterQuote' | 'skipLine';

const COMMA = 44;
const LF = 10;
const QUOTE = 34;

/** Where a run of characters with no comma, quote or line break ends. */
function plainEnd(text: string, from: number): number {
  let i = from;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === COMMA || c === LF || c === QUOTE) break;
  }
  return i;
}

/** Where a quoted value's run of characters ends: at its next quote. */
function quotedEnd(text: string, from: number): number {
  const q = text.indexOf('"', from);
  return q < 0 ? text.length : q;
}

/**
 * A streaming RFC 4180 reader: fields separated by commas, rows by LF or CRLF, a field in double quotes may hold
 * commas, line breaks and doubled quotes. A row that breaks the rules (text after a closing quote, a quote inside
 * an unquoted field, an unclosed quote at the end, not UTF-8, too long) is reported with its line and reading
 * goes on at the next line. Blank lines are skipped.
 */
export class CsvRowReader {
  private state: State = 'field';
  private fields: string[] = [];
  private field = '';
  private chars = 0;
  private line = 1;
  private rowLine = 1;
  private error: string | undefined;
  private quotedAny = false;

  constructor(private readonly maxRowChars: number) {}

  /** The rows completed by this text. */
  push(text: string, rows: CsvRow[]): void {
    let i = 0;
    while (i < text.length) {
      // Runs of plain characters are taken whole; the separators, quotes and line breaks one at a time.
      const end = this.state === 'field' ? plainEnd(text, i) : this.state === 'quoted' ? quotedEnd(text, i) : i;
      if (end > i) {
        this.addRun(text.slice(i, end));
        i = end;
        continue;
      }
      this.step(text[i]!, rows);
      i++;
    }
  }

  private addRun(run: string): void {
    if (this.state === 'quoted') for (let k = run.indexOf('\n'); k >= 0; k = run.indexOf('\n', k + 1)) this.line++;
    this.chars += run.length;
    if (this.chars > this.maxRowChars) return this.fail(`${tooLarge(this.chars, this.maxRowChars)}; skipped`);
    this.field += run;
  }

  /** The last row, when the text does not end with a line break. */
  end(rows: CsvRow[]): void {
    if (this.state === 'quoted') this.fail('a quoted value is not closed before the end of the file');
    if (this.state === 'field' && this.field.endsWith('\r')) this.field = this.field.slice(0, -1);
    if (this.error || this.fields.length > 0 || this.field !== '' || this.quotedAny) this.endRow(rows);
  }

  private fail(why: string): void {
    this.error ??= why;
    this.state = 'skipLine';
  }

  private add(c: string): void {
    if (++this.chars > this.maxRowChars) return this.fail(`${tooLarge(this.chars, this.maxRowChars)}; skipped`);
    this.field += c;
  }

  private endField(): void {
    this.fields.push(this.field);
    this.field = '';
  }

  private endRow(rows: CsvRow[]): void {
    if (this.error) rows.push({ line: this.rowLine, error: this.error });
    else {
      this.endField();
      const blank = this.fields.length === 1 && this.fields[0] === '' && !this.quotedAny;
      // The decoder stands U+FFFD in for bytes that are not UTF-8: such a row is refused, never silently changed.
      if (blank) void 0;
      else if (this.fields.some((f) => f.includes('\uFFFD'))) rows.push({ line: this.rowLine, error: 'is not valid UTF-8' });
      else rows.push({ line: this.rowLine, fields: this.fields });
    }
    this.fields = [];
    this.field = '';
    this.chars = 0;
    this.error = undefined;
    this.quotedAny = false;
    this.state = 'field';
    this.rowLine = this.line;
  }

  private step(c: string, rows: CsvRow[]): void {
    if (c === '\n') this.line++;
    switch (this.state) {
      case 'skipLine':
        if (c === '\n') this.endRow(rows);
        return;
      case 'quoted':
        if (c === '"') this.state = 'quoteInQuoted';
        else this.add(c);
        return;
      case 'quoteInQuoted':
        if (c === '"') {
          this.add('"');
          this.state = 'quoted';
          return;
        }
        this.state = 'afterQuote';
        return this.step2(c, rows);
      case 'afterQuote':
        return this.step2(c, rows);
      case 'field':
        if (c === ',') this.endField();
        else if (c === '\n') {
          if (this.field.endsWith('\r')) this.field = this.field.slice(0, -1);
          this.endRow(rows);
        } else if (c === '"' && this.field === '') {
          this.state = 'quoted';
          this.quotedAny = true;
        } else if (c === '"') this.fail(`column ${this.fields.length + 1}: a quote inside an unquoted value (quote the whole value)`);
        else this.add(c);
    }
  }

  /** After a closing quote: only a comma, the line's end or a CR may follow. */
  private step2(c: string, rows: CsvRow[]): void {
    if (c === ',') {
      this.endField();
      this.state = 'field';
    } else if (c === '\n') this.endRow(rows);
    else if (c !== '\r') this.fail(`column ${this.fields.length + 1}: text after a closing quote`);
  }
}

/**
 * Streams a CSV file (a path, `-` for stdin, or a Readable) as rows, the rows of each chunk read together, in
 * constant memory. A UTF-8 byte order mark at the start is dropped.
 */
export async function* readCsvChunks(source: string | Readable, opts: ReadCsvOptions = {}): AsyncGenerator<CsvRow[]> {
  const input = typeof source !== 'string' ? source : source === '-' ? (opts.stdin ?? process.stdin) : createReadStream(source);
  const reader = new CsvRowReader(opts.maxRowChars ?? defaults.maxRecordBytes);
  const decoder = new StringDecoder('utf8');
  let first = true;
  try {
    for await (const chunk of input) {
      let text = typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
      if (first && text.length > 0) {
        text = text.replace(/^\uFEFF/, '');
        first = false;
      }
      const rows: CsvRow[] = [];
      reader.push(text, rows);
      yield rows;
    }
    const rows: CsvRow[] = [];
    reader.push(decoder.end(), rows);
    reader.end(rows);
    yield rows;
  } finally {
    if (typeof source === 'string' && source !== '-') (input as ReturnType<typeof createReadStream>).destroy();
  }
}
