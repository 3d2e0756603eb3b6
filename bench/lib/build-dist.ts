import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';

/** Compiles dist/ (what `npx inventory-sync` runs after npm run build); false when no fresh entry point came of it. */
export function buildDist(root: string, say: (line: string) => void): boolean {
  const started = Date.now();
  try {
    execFileSync(process.execPath, [resolve(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: root, stdio: 'pipe' });
    return true;
  } catch (err) {
    // tsc emits despite type errors elsewhere; what matters is a fresh entry point.
    const entry = resolve(root, 'dist/src/bin/inventory-sync.js');
    if (existsSync(entry) && statSync(entry).mtimeMs >= started - 1000) return true;
    say(
      `npm run build failed, running the sources through tsx instead: ${String((err as { stdout?: Buffer }).stdout ?? err).slice(0, 500)}`,
    );
    return false;
  }
}
