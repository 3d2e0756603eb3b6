import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const bundles = new Map<string, string>();

/** Bundles of test processes that are gone (a worker ended without its exit hook): never read again. */
function removeOrphans(dir: string): void {
  for (const name of readdirSync(dir)) {
    const pid = Number(/-(\d+)\.mjs$/.exec(name)?.[1]);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch {
      rmSync(join(dir, name), { force: true });
    }
  }
}

/**
 * A fixture process's script (test/fixtures/*.ts) as one JavaScript file, for `node` to run without tsx: the fixture
 * and the program's modules it imports, bundled by esbuild once per test process (about a second), the packages left
 * to node_modules. A child then starts in well under a second instead of tsx compiling each module at each start.
 * The bundle lives under dist/ (built output, per checkout), where node_modules resolves as from the sources.
 */
export function fixtureBundle(fixture: string): string {
  const done = bundles.get(fixture);
  if (done) return done;
  const dir = join(root, 'dist/test-fixtures');
  mkdirSync(dir, { recursive: true });
  if (bundles.size === 0) removeOrphans(dir);
  // Bundled again by each test process (the sources may have changed since), and gone when it exits.
  const outfile = join(dir, `${basename(fixture, '.ts')}-${process.pid}.mjs`);
  process.once('exit', () => rmSync(outfile, { force: true }));
  buildSync({
    entryPoints: [fixture],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
  bundles.set(fixture, outfile);
  return outfile;
}
