import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/**
 * One line of an NDJSON file: its parsed value (and its text, trimmed), or why it could not be parsed (and the
 * start of its text). Lines count from 1.
 */
export type NdjsonEntry = { line: number; value: unknown; text: string } | { line: number; error: string; text: string };

export interface ReadNdjsonOptions {
  /** What `-` reads. Default process.stdin. */
  stdin?: Readable;
  /** A longer line is reported as an error and skipped, so one broken line cannot exhaust memory. Default 16 MiB. */
  maxLineBytes?: number;
}

/** Longest piece of a bad line quoted in its error. */
const QUOTE_CHARS = 120;

function parseLine(line: number, text: string): NdjsonEntry {
  try {
    return { line, value: JSON.parse(text), text };
  } catch (err) {
    return { line, error: `not valid JSON (${(err as Error).message})`, text: text.slice(0, QUOTE_CHARS) };
  }
}

/**
 * Streams an NDJSON file (a path, `-` for stdin, or a Readable) line by line, in constant memory:
 * the source is read chunk by chunk as the caller pulls. Blank lines are skipped; a malformed line is
 * reported with its number and reading goes on.
 */
export async function* readNdjson(source: string | Readable, opts: ReadNdjsonOptions = {}): AsyncGenerator<NdjsonEntry> {
  for await (const entries of readNdjsonChunks(source, opts)) yield* entries;
}

/**
 * As readNdjson, but the lines of each chunk read come together (an array per chunk, possibly empty): one await per
 * chunk rather than per line, for callers that go through millions of lines.
 */
export async function* readNdjsonChunks(source: string | Readable, opts: ReadNdjsonOptions = {}): AsyncGenerator<NdjsonEntry[]> {
  const input = typeof source !== 'string' ? source : source === '-' ? (opts.stdin ?? process.stdin) : createReadStream(source);
  const maxChars = opts.maxLineBytes ?? 16 * 1024 * 1024;
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let line = 0;
  let oversized = false;
  try {
    for await (const chunk of input) {
      const text = rest + (typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer));
      const entries: NdjsonEntry[] = [];
      let start = 0;
      for (let nl = text.indexOf('\n', start); nl !== -1; nl = text.indexOf('\n', start)) {
        line++;
        const raw = text.slice(start, nl);
        start = nl + 1;
        if (oversized) {
          oversized = false;
          entries.push({ line, error: `longer than ${maxChars} characters; skipped`, text: '' });
          continue;
        }
        const trimmed = raw.trim();
        if (trimmed) entries.push(parseLine(line, trimmed));
      }
      rest = text.slice(start);
      if (rest.length > maxChars) {
        oversized = true;
        rest = '';
      }
      yield entries;
    }
    rest += decoder.end();
    if (oversized || rest.trim()) {
      line++;
      yield [oversized ? { line, error: `longer than ${maxChars} characters; skipped`, text: '' } : parseLine(line, rest.trim())];
    }
  } finally {
    // A caller that stops early (break) must not leave the file open.
    if (typeof source === 'string' && source !== '-') (input as ReturnType<typeof createReadStream>).destroy();
  }
}
