import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fixtureBundle } from './fixture-bundle.js';
import { defaultRedisGuard, redisTarget } from './redis.js';
import type { TestWorld } from './test-world.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/order-worker.ts', import.meta.url));

/**
 * Starts the order worker fixture (test/fixtures/order-worker.ts) as a child process on the world's Redis prefix and
 * sandbox; resolves once it is taking jobs. With `lines`, its log lines at `logLevel` (JSON) are collected there; `env`
 * is added to its environment (the freeze hook's, src/client/layers/freeze-hook.ts).
 */
export function startOrderWorkerProcess(
  world: TestWorld,
  o: { concurrency?: number; lines?: string[]; logLevel?: string; env?: Record<string, string> } = {},
): Promise<ChildProcess> {
  const settings = {
    redis: redisTarget(),
    prefix: world.prefix,
    baseUrl: world.sandbox.url,
    account: world.sandbox.account,
    key: world.sandbox.key,
    secret: world.sandbox.secret,
    concurrency: o.concurrency ?? 4,
    ...(o.lines ? { logLevel: o.logLevel ?? 'warn', logDestination: 1 } : {}),
  };
  const child = spawn(process.execPath, [...defaultRedisGuard(), fixtureBundle(FIXTURE)], {
    env: { ...process.env, ...o.env, ORDER_WORKER: JSON.stringify(settings) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      const text = d.toString();
      o.lines?.push(...text.split('\n').filter((l) => l.startsWith('{')));
      if (text.includes('ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker process exited with ${code} before it was ready`)));
  });
}
