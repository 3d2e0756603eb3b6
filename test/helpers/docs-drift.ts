/**
 * Holds docs to the program: every command, subcommand, npm script, flag and setting a page names must exist
 * (`docsDrift`), and every setting must be named by some page (`unnamedSettings`). Each problem is one line, `file:line: what is wrong; what to fix`.
 */
import type { Command } from 'commander';
import { docMentions, flagName, type At, type Mention } from './doc-mentions.js';
import { allCommands, commandHasFlag, type ProgramSurface } from './program-surface.js';

export interface Page {
  /** As shown in problems: `README.md`, `docs/operations.md`. */
  file: string;
  text: string;
}

const where = (at: At) => `${at.file}:${at.line}`;

/**
 * When an UPPER_SNAKE name in code is a setting (and so must be one the program reads). Failure codes (BAD_RECORD),
 * Redis replies (OOM, READONLY), service names (PHSCL_INV_CREATED) and header names are not, so a name counts only
 * when its context says "environment variable":
 * - it is assigned, `NAME=value` (a shell line, an env file, `docker run -e`);
 * - it is in the first column of a table whose header is "variable" or "setting" (the configuration tables);
 * - it reads like a setting: its first word is the first word of one of the program's settings (`SYNC_`, `REDIS_`,
 *   `ALERT_`, ...) and its last word the last word of one (`_SECONDS`, `_URL`, `_FILE`, `_SINCE`, ...), both taken
 *   from config/schema.ts, so the rule follows the settings as they are added. One end alone is not enough: failure
 *   codes share first words (`FEED_UNAUTHORIZED`) and last ones (`SERVICE_NO_ACCOUNT`), constants end in `_MS`.
 */
export function settingRule(settings: Set<string>): (m: Extract<Mention, { kind: 'name' }>) => boolean {
  const firsts = new Set([...settings].map((s) => s.slice(0, s.indexOf('_'))));
  const lasts = new Set([...settings].map((s) => s.slice(s.lastIndexOf('_') + 1)));
  const readsLikeOne = (name: string) =>
    name.includes('_') && firsts.has(name.slice(0, name.indexOf('_'))) && lasts.has(name.slice(name.lastIndexOf('_') + 1));
  return (m) => m.assigned || m.inSettingsTable || readsLikeOne(m.name);
}

/** The problems of a command line: its command, subcommand (also after ` / `, as in `jobs list / show`) and flags. */
function commandLineProblems(program: Command, tokens: string[], at: At, bare = false): string[] {
  const [first, ...rest] = tokens;
  if (!first || !/^[a-z][a-z-]*$/.test(first)) return [];
  let cmd = program.commands.find((c) => c.name() === first);
  if (!cmd && bare) return [];
  if (!cmd) return [`${where(at)}: \`inventory-sync ${first}\`: no such command; the commands are ${names(program.commands)}`];
  const parent = cmd;
  let wantSub = cmd.commands.length > 0;
  const problems: string[] = [];
  for (const t of rest) {
    if (t === '/') {
      wantSub = true;
      cmd = parent;
    } else if (t.startsWith('--')) {
      const flag = flagName(t);
      if (!commandHasFlag(cmd, flag)) problems.push(`${where(at)}: ${unknownFlag(cmd, flag)}`);
    } else if (wantSub && /^[a-z][a-z-]*$/.test(t)) {
      wantSub = false;
      const sub = parent.commands.find((c) => c.name() === t);
      if (sub) cmd = sub;
      else
        problems.push(
          `${where(at)}: \`inventory-sync ${parent.name()} ${t}\`: no such subcommand; ${parent.name()} has ${names(parent.commands)}`,
        );
    } else wantSub = false;
  }
  return problems;
}

function names(cmds: readonly Command[]): string {
  return cmds.map((c) => c.name()).join(', ');
}

function pathOf(cmd: Command): string {
  const up = cmd.parent && cmd.parent.parent ? `${pathOf(cmd.parent)} ` : '';
  return `${up}${cmd.name()}`;
}

function unknownFlag(cmd: Command, flag: string): string {
  const has = cmd.options.map((o) => o.long).filter(Boolean);
  return `\`${flag}\`: \`inventory-sync ${pathOf(cmd)}\` has no such flag (it has ${has.join(' ') || 'none'}); name one it has`;
}

/** A flag alone: of the commands of its table row when it is in one, else of any command or script. */
function flagProblems(surface: ProgramSurface, m: Extract<Mention, { kind: 'flag' }>): string[] {
  const rowCommands = m.commands
    .map((tokens) => surface.program.commands.find((c) => c.name() === tokens[0]))
    .filter((c): c is Command => c !== undefined);
  if (rowCommands.length > 0) {
    const all = rowCommands.flatMap((c) => [c, ...allCommands(c)]);
    if (all.some((c) => commandHasFlag(c, m.flag))) return [];
    return [`${where(m)}: ${unknownFlag(rowCommands[0]!, m.flag)}`];
  }
  const known =
    surface.otherFlags.includes(m.flag) ||
    allCommands(surface.program).some((c) => commandHasFlag(c, m.flag)) ||
    Object.values(surface.scripts).some((takes) => takes?.(m.flag));
  return known ? [] : [`${where(m)}: \`${m.flag}\`: no command or npm script of the program has this flag; name one that does`];
}

function scriptProblems(surface: ProgramSurface, m: Extract<Mention, { kind: 'script' }>): string[] {
  if (!(m.script in surface.scripts))
    return [
      `${where(m)}: \`npm run ${m.script}\`: package.json has no such script; its scripts are ${Object.keys(surface.scripts).join(', ')}`,
    ];
  if (m.script === 'cli') return commandLineProblems(surface.program, m.args, m);
  const takes = surface.scripts[m.script];
  return m.args
    .filter((a) => a.startsWith('--'))
    .map(flagName)
    .filter((flag) => !takes?.(flag))
    .map((flag) => `${where(m)}: \`npm run ${m.script} -- ${flag}\`: the script does not take this flag; name one it parses`);
}

/** Every command, script, flag and setting the pages name that the program lacks, one line each, in page order. */
export function docsDrift(pages: readonly Page[], surface: ProgramSurface): string[] {
  const isSetting = settingRule(surface.settings);
  const problems: string[] = [];
  for (const page of pages) {
    for (const m of docMentions(page.file, page.text)) {
      if (m.kind === 'command') problems.push(...commandLineProblems(surface.program, m.tokens, m, m.bare));
      else if (m.kind === 'script') problems.push(...scriptProblems(surface, m));
      else if (m.kind === 'flag') problems.push(...flagProblems(surface, m));
      else if (isSetting(m) && !surface.reads(m.name))
        problems.push(
          `${where(m)}: \`${m.name}\` is not a setting the program reads (config/schema.ts, or env.${m.name} in the code); ` +
            'name the setting that does this, or say it is something else',
        );
    }
  }
  return problems;
}

/** The program's settings that no page names (anywhere in its text), one line each. */
export function unnamedSettings(pages: readonly Page[], surface: ProgramSurface): string[] {
  const named = new Set(pages.flatMap((p) => p.text.match(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*\b/g) ?? []));
  return [...surface.settings]
    .filter((s) => !named.has(s))
    .map((s) => `${s} (config/schema.ts) is named by no doc: add it to README.md's "Configuration" table, or to the doc of what it tunes`);
}
