import { Socket } from 'node:net';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = new Socket();
    s.setTimeout(1000);
    s.once('connect', () => s.write('PING\r\n'));
    s.once('data', (d) => {
      s.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
    s.once('error', () => resolve(false));
    s.once('timeout', () => {
      s.destroy();
      resolve(false);
    });
    s.connect(port, host);
  });
}

/** Tests need a real Redis: REDIS_URL, else 127.0.0.1:6379. Fails with what to do when none answers. */
export default async function setup(project: TestProject) {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const u = new URL(url);
  if (!(await answers(u.hostname, Number(u.port || 6379)))) {
    throw new Error(`No Redis answers at ${url}. Start one (bash scripts/ensure-redis.sh) or set REDIS_URL.`);
  }
  project.provide('redisUrl', url);
}
