#!/usr/bin/env node
// `npm run lint`: ESLint (tools/lint, installed here when missing or stale) and Prettier's check, both run, either
// failing fails. `npm run format` (--fix): ESLint's fixes (type imports), then Prettier writes.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ensureLintKit } from './lint-kit.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const fix = process.argv.includes('--fix');
/** What Prettier formats: the code, not the docs. */
export const PRETTIER_PATHS = ['src', 'jobs', 'config', 'test', 'bench', 'scripts', 'eslint.config.js', 'vitest.config.ts'];

const run = (cmd, args) => spawnSync(cmd, args, { cwd: root, stdio: 'inherit' }).status ?? 1;

if (!ensureLintKit(root)) process.exit(1);

const eslint = run(`${root}tools/lint/node_modules/.bin/eslint`, fix ? ['--fix', '.'] : ['.']);
const prettierBin = `${root}node_modules/.bin/prettier`;
const check = (level) => run(prettierBin, ['--check', '--log-level', level, ...PRETTIER_PATHS]);
// Prettier can need a second pass to settle (a chained call whose callback it re-breaks): write until it checks.
const write = () => run(prettierBin, ['--write', '--log-level', 'warn', ...PRETTIER_PATHS]) || (check('silent') && write2());
const write2 = () => run(prettierBin, ['--write', '--log-level', 'warn', ...PRETTIER_PATHS]) || check('log');
const prettier = fix ? write() : check('log');
if (eslint !== 0 || prettier !== 0) {
  console.error(
    `lint: ${[eslint && 'ESLint', prettier && 'Prettier'].filter(Boolean).join(' and ')} failed${fix ? '' : ' (npm run format writes the format)'}`,
  );
  process.exit(1);
}
