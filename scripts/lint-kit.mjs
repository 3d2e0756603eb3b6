// The lint kit (tools/lint: ESLint and typescript-eslint on TypeScript 6, with a lock of its own), installed when
// missing or older than its lock. `npm run lint` and the lint rules' test call it, so a fresh clone needs no step.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

/** Installs the kit under `root` when it is missing or stale; answers false when npm failed. */
export function ensureLintKit(root, log = (line) => console.log(line)) {
  const lock = `${root}tools/lint/package-lock.json`;
  const installed = `${root}tools/lint/node_modules/.package-lock.json`;
  if (existsSync(installed) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs) return true;
  log('lint: installing the lint kit (npm ci --prefix tools/lint)');
  const r = spawnSync('npm', ['ci', '--prefix', 'tools/lint', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  return r.status === 0;
}
