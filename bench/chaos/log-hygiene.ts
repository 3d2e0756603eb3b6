import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { check, type CheckResult } from './check-types.js';

/**
 * Lines the entry point and the dashboard write for a person on purpose (no data in them); the last four are what a
 * command that found Redis down or full (exit 3, the import during the Redis restart or the full Redis) says, the URL
 * without its password.
 */
const HUMAN = [
  /^SIGTERM: finishing active work/,
  /^Dashboard: http/,
  /^Queues: +http/,
  // With ACCOUNTS_FILE, instead of the queues' line: how many accounts and where each one's pages are.
  /^Accounts: +\d+ \([a-z0-9, -]+(?:\.\.\.)?[^)]*\), each at http:\/\/[^\s]+\/a\/NAME\/ \(its queues at \/a\/NAME\/queues\)$/,
  /^Stop with Ctrl-C\.$/,
  /^Redis could not be reached at redis:\/\/[^\s]+: (?:[A-Z_]+|no answer(?: within \d+ ms)?)$/,
  /^Start Redis or point REDIS_URL at one \(e\.g\. redis:\/\/127\.0\.0\.1:6379\)\.$/,
  /^Redis failed: OOM command not allowed when used memory > 'maxmemory'\./,
  /^Redis is out of memory \(maxmemory\): free memory or raise maxmemory/,
];

/**
 * Every line a process wrote must be one of the logger's JSON lines (which redact secrets by key and by value)
 * or a known line for a person; anything else (a stack printed by a library) bypassed the redaction.
 */
export function checkLogHygiene(files: string[]): CheckResult {
  const violations: string[] = [];
  let lines = 0;
  for (const f of files) {
    const stray = new Map<string, number>();
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      lines++;
      if (line.startsWith('{')) {
        try {
          JSON.parse(line);
          continue;
        } catch {
          // falls through: not a JSON line
        }
      }
      if (HUMAN.some((re) => re.test(line))) continue;
      const shape = line.trim().replace(/\d+/g, 'N').slice(0, 80);
      stray.set(shape, (stray.get(shape) ?? 0) + 1);
    }
    const total = [...stray.values()].reduce((a, b) => a + b, 0);
    if (total > 0) {
      const top = [...stray.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([s, n]) => `${n} x "${s}"`)
        .join('; ');
      violations.push(`${basename(f)}: ${total} line(s) outside the logger, e.g. ${top}`);
    }
  }
  return check('every output line is a logger JSON line (nothing bypasses its redaction)', lines, violations);
}
