import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fixtureBundle } from './fixture-bundle.js';
import { defaultRedisGuard, redisUrl } from './redis.js';
import type { TestWorld } from './test-world.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/stock-worker-process.ts', import.meta.url));

/**
 * Starts test/fixtures/stock-worker-process.ts on the world's sandbox and prefix; resolves once it works.
 * env: CHUNK (variance chunk size), CRASH_AFTER_VARIANCES, JOB_LOCK_MS (see the fixture).
 */
export function startStockWorker(world: TestWorld, children: ChildProcess[], env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...defaultRedisGuard(), fixtureBundle(FIXTURE)], {
    env: {
      ...process.env,
      REDIS_URL: redisUrl(),
      PREFIX: world.prefix,
      SANDBOX_URL: world.sandbox.url,
      ACCOUNT: world.sandbox.account,
      KEY: world.sandbox.key,
      SECRET: world.sandbox.secret,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) resolve(child);
    });
    child.once('exit', (code, signal) => reject(new Error(`worker process exited before ready (${code ?? signal})`)));
  });
}

/** Resolves with the signal that ended the child (null when it exited by itself). */
export const exited = (child: ChildProcess) =>
  new Promise<NodeJS.Signals | null>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve(child.signalCode) : child.once('exit', (_c, s) => resolve(s)),
  );

/** Kills (SIGKILL) every child still running and empties the list. */
export function killAll(children: ChildProcess[]): void {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}
