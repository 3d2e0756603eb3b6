/**
 * The program's outside as the program itself says it: the real commander program (commands, subcommands and
 * options), package.json's scripts and the flags each one parses, the settings of config/schema.ts and every other
 * environment variable the code reads. The docs-drift test holds README.md and docs/*.md to it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { envSchema, secretSettings } from '../../config/schema.js';
import { settingsOf } from '../../config/kind-setting.js';
import { programKinds } from '../../jobs/kinds.js';
import { stockAdjustmentKind } from '../jobs/fifth-kind/stock-adjustment-kind.js';
import { parseBenchArgs } from '../../bench/lib/bench-options.js';
import { parseChaosArgs } from '../../bench/chaos/chaos-options.js';

export interface ProgramSurface {
  /** The real program, built as src/bin builds it (building runs nothing: actions run only on parse). */
  program: Command;
  /** package.json's scripts: for each, whether it takes a flag after `--` (undefined: it takes none). */
  scripts: Record<string, ((flag: string) => boolean) | undefined>;
  /** The settings the program has: config/schema.ts's keys and each secret's `_FILE` form. */
  settings: Set<string>;
  /** Flags that other programs take, quoted alone in the docs. */
  otherFlags: readonly string[];
  /** Whether the program, its tests, benchmarks or scripts read a variable, or another program it runs does. */
  reads: (name: string) => boolean;
}

/**
 * Variables that other programs read, which the docs may quote: OpenTelemetry's SDK reads the standard `OTEL_*`
 * itself (config/schema.ts checks only those that decide whether to trace); Node reads `NODE_EXTRA_CA_CERTS` and
 * `NODE_OPTIONS`; `X_FILE` is the docs' placeholder for "every secret X, as a file".
 */
const OTHER_PROGRAMS = [/^OTEL_[A-Z_]+$/, /^NODE_EXTRA_CA_CERTS$/, /^NODE_OPTIONS$/, /^X_FILE$/];

/**
 * Flags of other programs that the docs quote alone: Node's `--cpu-prof`; `--list` of scripts/import-path.mjs;
 * `--auto-pipelining` of bench/orders-throughput.ts (run with `npx tsx`, not through an npm script).
 */
const OTHER_FLAGS = ['--cpu-prof', '--list', '--auto-pipelining'];

/** Where the code reads the environment outside config/ (`env.NAME`, `env['NAME']`): src/bin, tests, benches, scripts. */
const READ_ROOTS = ['src', 'jobs', 'config', 'bench', 'scripts', 'test', 'vitest.config.ts'];
const READ_SKIP = ['test/docs', 'node_modules'];
const ENV_READ = /\benv(?:\.([A-Z][A-Z0-9_]*)\b|\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\])/g;

/** A `node:util` parseArgs-based parser knows a flag unless it throws ERR_PARSE_ARGS_UNKNOWN_OPTION for it. */
function parsesFlag(parse: (argv: string[]) => unknown): (flag: string) => boolean {
  return (flag) => {
    try {
      parse([flag]);
      return true;
    } catch (err) {
      return (err as { code?: string }).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION';
    }
  };
}

/** Flags of a command line run through the program (`npm run cli -- <command>`, or a script that is one command). */
function programFlags(program: Command, command?: string): (flag: string) => boolean {
  return (flag) => {
    const cmds = command ? program.commands.filter((c) => c.name() === command) : allCommands(program);
    return cmds.some((c) => commandHasFlag(c, flag));
  };
}

/** Every command and subcommand of the program. */
export function allCommands(cmd: Command): Command[] {
  return cmd.commands.flatMap((c) => [c, ...allCommands(c)]);
}

/** Whether a command (or commander's own `--help`) takes `--flag`. */
export function commandHasFlag(cmd: Command, flag: string): boolean {
  // The program's own options (`--account`) go before or after any command: commander reads them there too.
  for (let c: Command | null = cmd; c; c = c.parent) if (c.options.some((o) => o.long === flag || o.short === flag)) return true;
  return flag === '--help';
}

function envReads(root: string): Set<string> {
  const names = new Set<string>();
  const visit = (path: string) => {
    const rel = relative(root, path);
    if (READ_SKIP.some((s) => rel === s || rel.startsWith(`${s}/`))) return;
    if (statSync(path).isDirectory()) return readdirSync(path).forEach((f) => visit(join(path, f)));
    if (!/\.(?:ts|tsx|mjs|js)$/.test(path)) return;
    for (const m of readFileSync(path, 'utf8').matchAll(ENV_READ)) names.add((m[1] ?? m[2])!);
  };
  for (const r of READ_ROOTS) visit(join(root, r));
  return names;
}

/** The surface of the program in the checkout at `root`. */
export function programSurface(root: string): ProgramSurface {
  const quiet = new PassThrough();
  const io = { env: {}, stdout: quiet, stderr: quiet, stdin: new PassThrough(), stop: new AbortController().signal };
  const program = buildProgram(io, () => undefined, programKinds);
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  // Each script's own argument parsing; scripts missing here take no flags.
  const parsers: Record<string, (flag: string) => boolean> = {
    cli: programFlags(program),
    demo: programFlags(program, 'demo'),
    sandbox: programFlags(program, 'sandbox'),
    bench: parsesFlag(parseBenchArgs),
    chaos: parsesFlag(parseChaosArgs),
    'chaos:short': parsesFlag(parseChaosArgs),
    // scripts/lint.mjs reads `--fix` from its argv (`npm run format` passes it).
    lint: (flag) => flag === '--fix',
  };
  const scripts = Object.fromEntries(Object.keys(pkg.scripts).map((s) => [s, parsers[s]]));
  // The program's own settings, and those each kind of the list declares (src/kinds/kind.ts `settings`), the test-only
  // fifth kind's too (docs/adding-a-kind.md names them as the example).
  const kindSettings = settingsOf([...programKinds, stockAdjustmentKind]).map((s) => s.name);
  const settings = new Set([...Object.keys(envSchema.shape), ...secretSettings.map((s) => `${s}_FILE`), ...kindSettings]);
  const read = envReads(root);
  const reads = (name: string) => settings.has(name) || read.has(name) || OTHER_PROGRAMS.some((p) => p.test(name));
  return { program, scripts, settings, reads, otherFlags: OTHER_FLAGS };
}
