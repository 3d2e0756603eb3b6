/**
 * The tests that need a process of the program (signals, exit codes, a clean stdout, a server beside the test) run
 * the built program, dist/ (test/cli/run-cli.ts spawnCli), as an install runs it: no tsx compiling every module at
 * each start (about 2.5 s and a core's worth of work per child on this machine). So that they never run older code
 * than the sources, dist/ is built here, before any test, whenever a source is newer than what was built from it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIST_ENTRY } from './dist-entry.js';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** What tsconfig.json compiles, and the dashboard's browser sources that scripts/build-dashboard-assets.mjs bundles. */
const SOURCES = ['src', 'jobs', 'config'].map((d) => join(root, d));
const BUILT = [DIST_ENTRY, join(root, 'dist/src/dashboard/assets/flow-charts.js'), join(root, 'dist/src/dashboard/assets/dashboard.css')];

function newestIn(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestIn(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function builtAt(): number {
  try {
    return Math.min(...BUILT.map((f) => statSync(f).mtimeMs));
  } catch {
    return 0;
  }
}

const stale = () =>
  builtAt() < Math.max(...SOURCES.map(newestIn), ...['tsconfig.json', 'package.json'].map((f) => statSync(join(root, f)).mtimeMs));

/** `npm run build`'s two emitting steps; tsc emits despite a type error elsewhere (the type checks say those). */
function build(): void {
  const started = Date.now();
  try {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: root, stdio: 'pipe' });
  } catch (err) {
    if ((statSync(DIST_ENTRY, { throwIfNoEntry: false })?.mtimeMs ?? 0) < started - 1000)
      throw new Error(`building dist/ for the tests failed: ${String((err as { stdout?: Buffer }).stdout ?? err).slice(0, 2000)}`);
  }
  execFileSync(process.execPath, [join(root, 'scripts/build-dashboard-assets.mjs')], { cwd: root, stdio: 'pipe' });
}

export default async function setup() {
  if (!stale()) return;
  // One build at a time in this checkout (two runs started together): the second waits, then finds it fresh.
  const lock = join(root, 'dist/.test-build-lock');
  mkdirSync(join(root, 'dist'), { recursive: true });
  for (const until = Date.now() + 180_000; ;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > until) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    if (!stale()) return;
    const started = Date.now();
    process.stderr.write('dist/: older than the sources, building it for the tests that start the program (npm run build)\n');
    build();
    process.stderr.write(`dist/: built in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
