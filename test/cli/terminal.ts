import { spawn } from 'node:child_process';
import { collect, freshCwd, type CliRun } from './run-cli.js';
import { defaultRedisGuard } from '../helpers/redis.js';
import { DIST_ENTRY } from '../setup/dist-entry.js';

/** A word for the shell, quoted. */
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Runs the built program under a pseudo-terminal (`script` of util-linux): its stdout and stderr are a terminal, as a
 * person's are, and both come back merged in `stdout`, as the person sees them. The exit code is the program's.
 */
export function runInTerminal(args: string[], env: Record<string, string>, o: { timeoutMs?: number } = {}): Promise<CliRun> {
  const line = [process.execPath, ...defaultRedisGuard(), DIST_ENTRY, ...args].map(quote).join(' ');
  const child = spawn('script', ['-q', '-e', '-c', line, '/dev/null'], {
    cwd: freshCwd(),
    env: { ...env, TERM: 'xterm-256color', COLUMNS: '200', LINES: '50' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return collect(child, o);
}

/**
 * What a terminal shows of a text: colours and cursor moves taken out, each line as its last rewrite after a carriage
 * return (a progress bar redrawn in place), blank ends trimmed.
 */
export function screenText(raw: string): string {
  return raw

    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((l) => l.split('\r').filter(Boolean).at(-1) ?? '')
    .map((l) => l.trimEnd())
    .join('\n');
}

/** A table of the summary (the first whose head starts with `head`'s words), as rows of its columns by head. */
export function tableAfter(text: string, head: string): Array<Record<string, string>> {
  const lines = text.split('\n');
  const words = new RegExp(`^${head.trim().split(/\s+/).join('\\s+')}(\\s|$)`);
  const at = lines.findIndex((l) => words.test(l));
  if (at < 0) throw new Error(`no table "${head}" in:\n${text}`);
  const heads = lines[at]!.split(/\s{2,}/);
  const rows: Array<Record<string, string>> = [];
  for (const l of lines.slice(at + 1)) {
    if (!l.trim()) break;
    const cells = l.split(/\s{2,}/);
    rows.push(Object.fromEntries(heads.map((h, i) => [h, cells[i] ?? ''])));
  }
  return rows;
}
