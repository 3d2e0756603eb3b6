import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { connectRedis, safeRedisUrl } from '../cli/connect-redis.js';
import { UnreachableError } from '../cli/exit-codes.js';

export interface DemoRedis {
  url: string;
  /** True when the demo started its own redis-server (stopped by `stop`). */
  private: boolean;
  stop(): Promise<void>;
}

/** Where redis-server is on PATH, if anywhere. */
export function findOnPath(command: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export const INSTALL_REDIS_HINT =
  'Install Redis and run the demo again: `sudo apt-get install redis-server` (Debian/Ubuntu) or `brew install redis` (macOS); or set REDIS_URL to a Redis you have.';

/**
 * Redis for the demo: the one at `url` when it answers; otherwise a private redis-server from PATH on a free
 * port, with no persistence, stopped by `stop()`; otherwise UnreachableError saying how to get one.
 */
export async function redisForDemo(url: string, path: string | undefined): Promise<DemoRedis> {
  try {
    const probe = await connectRedis(url, 1000);
    probe.disconnect();
    return { url, private: false, stop: async () => undefined };
  } catch {
    // none answers: start our own
  }
  const bin = findOnPath('redis-server', path);
  if (!bin) throw new UnreachableError('Redis', safeRedisUrl(url), `No Redis answers and redis-server is not installed. ${INSTALL_REDIS_HINT}`);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'isync-demo-redis-'));
  const child: ChildProcess = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const privateUrl = `redis://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 50; i++) {
    if (child.exitCode !== null) break;
    try {
      const probe = await connectRedis(privateUrl, 500);
      probe.disconnect();
      return { url: privateUrl, private: true, stop };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await stop();
  throw new UnreachableError('Redis', privateUrl, `redis-server (${bin}) did not start: ${stderr.trim() || 'no answer'}. ${INSTALL_REDIS_HINT}`);
}
