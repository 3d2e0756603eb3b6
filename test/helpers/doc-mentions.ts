/**
 * What a Markdown page names of the program: command lines, npm scripts, flags and environment variables, each with
 * its file and line. Only code is read (inline code spans, fenced code blocks, the first cell of a command table):
 * prose may say "inventory-sync keeps..." without naming a command.
 */

/** Where a mention is: `docs/operations.md:12`. */
export interface At {
  file: string;
  line: number;
}

export type Mention =
  /**
   * `inventory-sync <tokens>` (or a command table's first cell): the words and flags after the program's name.
   * `bare`: a span such as `sync --once` that may be a command line without the program's name: checked only when its
   * first word is one of the program's commands.
   */
  | (At & { kind: 'command'; tokens: string[]; bare?: boolean })
  /** `npm run <script> [-- <args>]`. */
  | (At & { kind: 'script'; script: string; args: string[] })
  /** A code span that is a flag alone (`--all-failed`); `commands`: the command lines of its table row, when in one. */
  | (At & { kind: 'flag'; flag: string; commands: string[][] })
  /** An UPPER_SNAKE name with what decides whether it is a setting (see `settingRule` in docs-drift.ts). */
  | (At & { kind: 'name'; name: string; assigned: boolean; inSettingsTable: boolean });

const PROGRAM = /(?:^|[\s(`'"])(?:npx\s+)?(?:[\w./-]*\/)?inventory-sync(?:\.[jt]s)?\s+(?=\S)/g;
const NPM_RUN = /(?:^|[\s(`'"])npm\s+run\s+([\w:.-]+)/g;
// Where a shell command line ends: a pipe, &&, ;, a redirection or a comment (an escaped `\|` in a table is not one).
const COMMAND_END = /\s(?:\||&&|;|\d?>>?|#)(?:\s|$|&)/;
/** How a line starts that runs another program (or the program through one): not a bare command of the program. */
const OTHER_PROGRAM = /^(?:npm|npx|node|tsx|bash|sh|docker|git|curl|redis-cli|redis-server)\s/;
/** A word, maybe more, then a flag: `reconcile --repair`, `jobs list --state failed`. */
const BARE_COMMAND = /^[a-z][a-z-]*(?:\s+[^\s-][^`]*?)?\s+--[a-z]/;
const UPPER_SNAKE = /(?<![\w$.-])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z][A-Z0-9]+(?==))(?![\w])/g;
/** Before a name: it is set or passed on as an environment variable (`export NAME`, `docker run -e NAME`). */
const ENV_CONTEXT = /(?:^|\s)(?:export|-e|--env)\s+$/;
/** A YAML map's key at the start of a line (compose's `environment:`): `NAME: value`. */
const YAML_KEY = /^[A-Z][A-Z0-9_]*:\s/;
const TABLE_NAME = /(?<![\w$.-])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)(?![\w-])/g;

/** A command line's words: up to where the shell would end it, without Markdown's brackets and ellipses. */
export function commandTokens(text: string): string[] {
  const end = text.search(COMMAND_END);
  return (end < 0 ? text : text.slice(0, end))
    .replace(/\\\|/g, ' \\| ')
    .split(/\s+/)
    .map((t) => t.replace(/^[[(]+/, '').replace(/(?:\.\.\.|[\]),.`])+$/, ''))
    .filter((t) => t !== '');
}

/** The code spans of a line of prose (a table row's escaped pipes stay inside their span). */
function codeSpans(line: string): string[] {
  return [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}

/** A table row's cells (split on pipes that are not escaped). */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

interface TableState {
  /** The header's first cell, lower-cased: `command`, `variable`, ... */
  first: string;
}

/** Every mention of commands, scripts, flags and UPPER_SNAKE names in one page. */
export function docMentions(file: string, text: string): Mention[] {
  const out: Mention[] = [];
  let fence: string | undefined;
  let table: TableState | undefined;
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const at: At = { file, line: i + 1 };
    const fenceMark = /^\s*(```+|~~~+)/.exec(raw)?.[1];
    if (fenceMark && (!fence || fenceMark.startsWith(fence))) {
      fence = fence ? undefined : fenceMark;
      return;
    }
    if (fence) return codeLine(out, at, raw);
    if (!raw.trim().startsWith('|')) table = undefined;
    else if (!table) table = { first: (cells(raw)[0] ?? '').toLowerCase() };
    else if (!/^\|[\s|:-]+\|?$/.test(raw.trim())) return tableRow(out, at, raw, table);
    for (const span of codeSpans(raw)) spanMentions(out, at, span, false, []);
  });
  return out;
}

/** A line of a fenced block: a shell line, an env file, a log; comments are not commands. */
function codeLine(out: Mention[], at: At, raw: string): void {
  const line = raw.replace(/(?:^|\s)#.*$/, '');
  void commandMentions(out, at, line);
  nameMentions(out, at, line, false);
}

/** A row of a table: a command table's first cell holds command lines without the program's name. */
function tableRow(out: Mention[], at: At, raw: string, table: TableState): void {
  const [first = '', ...rest] = cells(raw);
  const settingsTable = /variable|setting/.test(table.first);
  const firstSpans = codeSpans(first);
  // A command table's first cell: the program's command lines, or another program's (`npm test`, `npx vitest run`).
  const foreign = firstSpans.some((s) => OTHER_PROGRAM.test(s));
  const rowCommands = table.first === 'command' && !foreign ? firstSpans.map((s) => commandTokens(s)) : [];
  for (const tokens of rowCommands) out.push({ ...at, kind: 'command', tokens });
  if (rowCommands.length === 0) for (const span of firstSpans) spanMentions(out, at, span, settingsTable, []);
  for (const span of rest.flatMap(codeSpans)) {
    // The flags in another program's row are that program's.
    if (foreign && /^--/.test(span)) nameMentions(out, at, span, false);
    else spanMentions(out, at, span, false, rowCommands);
  }
}

/** An inline code span: a command line, a flag alone, or names. */
function spanMentions(out: Mention[], at: At, span: string, inSettingsTable: boolean, rowCommands: string[][]): void {
  if (/^--[a-z]/.test(span)) out.push({ ...at, kind: 'flag', flag: flagName(span.split(/\s/)[0]!), commands: rowCommands });
  else if (!commandMentions(out, at, span) && BARE_COMMAND.test(span) && !OTHER_PROGRAM.test(span))
    out.push({ ...at, kind: 'command', tokens: commandTokens(span), bare: true });
  nameMentions(out, at, span, inSettingsTable);
}

/** The command lines and scripts a text runs; answers whether it found any. */
function commandMentions(out: Mention[], at: At, text: string): boolean {
  const before = out.length;
  for (const m of text.matchAll(PROGRAM)) out.push({ ...at, kind: 'command', tokens: commandTokens(text.slice(m.index + m[0].length)) });
  for (const m of text.matchAll(NPM_RUN)) {
    const rest = commandTokens(text.slice(m.index + m[0].length));
    out.push({ ...at, kind: 'script', script: m[1]!, args: rest[0] === '--' ? rest.slice(1) : [] });
  }
  return out.length > before;
}

function nameMentions(out: Mention[], at: At, text: string, inSettingsTable: boolean): void {
  // In a configuration table a one-word name (`TRANSFORMS`) is a setting too.
  for (const m of text.matchAll(inSettingsTable ? TABLE_NAME : UPPER_SNAKE)) {
    const before = text.slice(0, m.index);
    const yamlKey = /^\s*$/.test(before) && YAML_KEY.test(text.slice(m.index));
    const assigned = text[m.index + m[0].length] === '=' || ENV_CONTEXT.test(before) || yamlKey;
    out.push({ ...at, kind: 'name', name: m[1]!, assigned, inSettingsTable });
  }
}

/** `--stream=orders` → `--stream`. */
export function flagName(token: string): string {
  return token.replace(/=.*$/, '').replace(/[^\w-]+$/, '');
}
