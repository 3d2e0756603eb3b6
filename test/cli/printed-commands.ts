import { expect } from 'vitest';
import { runCli, type CliRun } from './run-cli.js';

/**
 * Every command line a text prints: `inventory-sync` and its words, to the end of the command (a backtick, a
 * semicolon, a parenthesis after a space, a comma or a full stop after a word, the end of the line).
 */
export function printedCommands(text: string): string[] {
  const out: string[] = [];
  for (const part of text.split('inventory-sync ').slice(1)) {
    const line = part.split('\n')[0]!;
    if (!/^(--account \S+ )?[a-z]/.test(line)) continue;
    out.push(
      line
        .split(/`|;| \(|\. |, /)[0]!
        .replace(/[.,:]+$/, '')
        .trim(),
    );
  }
  return out;
}

/** The one printed command that starts with `start` (a test that looks for a hint fails when it is missing or twice). */
export function printedCommand(text: string, start: string): string {
  const found = printedCommands(text).filter((c) => c.startsWith(start));
  expect(found, `one command "${start}..." in:\n${text}`).toHaveLength(1);
  return found[0]!;
}

/**
 * Runs a printed command as printed, in this process, with the environment of the situation that printed it; a
 * placeholder (`<FILE>`) is filled from `fill`, and one the test has no value for fails the test.
 */
export async function runPrinted(cmd: string, env: Record<string, string>, fill: Record<string, string> = {}): Promise<CliRun> {
  const argv = cmd.split(' ').map((word) => {
    const placeholder = /^<([A-Z]+)>$/.exec(word)?.[1];
    if (placeholder === undefined) return word;
    expect(fill, `a value for <${placeholder}> in "${cmd}"`).toHaveProperty(placeholder);
    return fill[placeholder]!;
  });
  return runCli(argv, env, { timeoutMs: 60_000 });
}

const VERDICT_CODES: Record<string, number> = { READY: 0, 'GAPS FOUND': 1, 'NOT READY': 3 };

/**
 * `check`, as a person and as a script reads it: the heading's verdict, the closing line's and `--json`'s say what
 * the exit code says. Answers the text run.
 */
export async function checkAgrees(env: Record<string, string>, args: string[] = []): Promise<CliRun & { verdict: string }> {
  const r = await runCli(['check', ...args], env, { timeoutMs: 60_000 });
  const verdict = /^Check of \S+: (READY|GAPS FOUND|NOT READY)/.exec(r.stdout)?.[1];
  expect(verdict, r.stdout + r.stderr).toBeDefined();
  expect(r.code, `check said ${verdict}:\n${r.stdout}`).toBe(VERDICT_CODES[verdict!]);
  const closing = r.stdout.trimEnd().split('\n').at(-1)!;
  expect(closing.startsWith({ 0: 'Ready:', 1: 'Gaps found', 3: 'Not ready:' }[r.code!]!), closing).toBe(true);
  const json = await runCli(['check', '--json', ...args.filter((a) => a !== '--register-webhooks')], env, { timeoutMs: 60_000 });
  const report = JSON.parse(json.stdout) as { verdict: string; exitCode: number };
  expect([report.exitCode, json.code]).toEqual([r.code, r.code]);
  expect({ ready: 0, gaps: 1, unreachable: 3 }[report.verdict]).toBe(r.code);
  return { ...r, verdict: verdict! };
}
