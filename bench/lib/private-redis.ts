import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';

/** A redis-server of our own: its own port and folder, persisted with AOF so a graceful restart loses nothing. */
export interface PrivateRedis {
  url: string;
  port: number;
  /** Folder holding the AOF files and redis.log. */
  dir: string;
  /** SHUTDOWN (AOF flushed), stay down for `downMs`, start again on the same port and folder. */
  restart(downMs?: number): Promise<void>;
  /** Times restart() has completed. */
  restarts(): number;
  stop(): Promise<void>;
}

export interface PrivateRedisOptions {
  /** Default: a fresh folder under the OS temp dir, removed by stop(). */
  dir?: string;
  port?: number;
  /** Path of redis-server. Default: found on PATH. */
  binary?: string;
  /** More redis-server arguments, e.g. ['--maxmemory-policy', 'allkeys-lru']. */
  args?: string[];
}

async function ping(port: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    r.on('error', () => undefined);
    try {
      await r.connect();
      // Answers LOADING while it replays the AOF: wait until it serves.
      if ((await r.ping()) === 'PONG') return;
    } catch {
      // not up yet
    } finally {
      r.disconnect();
    }
    if (Date.now() > until) throw new Error(`redis-server on port ${port} did not answer within ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** Starts a private redis-server (appendonly yes, no RDB snapshots) and waits until it answers PING. */
export async function startPrivateRedis(o: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  const ownDir = o.dir === undefined;
  const dir = o.dir ?? mkdtempSync(join(tmpdir(), 'isync-redis-'));
  mkdirSync(dir, { recursive: true });
  const port = o.port ?? (await freePort());
  const binary = o.binary ?? 'redis-server';
  let child: ChildProcess | undefined;
  let restarts = 0;

  const launch = async () => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'everysec'];
    args.push('--save', '', '--daemonize', 'no', '--logfile', join(dir, 'redis.log'), '--protected-mode', 'yes', ...(o.args ?? []));
    const c = spawn(binary, args, { stdio: 'ignore' });
    child = c;
    const failed = new Promise<never>((_, reject) => {
      c.once('error', (err) => reject(new Error(`could not start ${binary}: ${err.message}`)));
      c.once('exit', (code) => reject(new Error(`${binary} exited with code ${code} at start (see ${join(dir, 'redis.log')})`)));
    });
    failed.catch(() => undefined);
    await Promise.race([ping(port, 15_000), failed]);
  };

  const shutdown = async () => {
    const c = child;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise<void>((res) => c.once('exit', () => res()));
    const r = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0, retryStrategy: () => null });
    r.on('error', () => undefined);
    // SHUTDOWN closes the connection instead of answering; the exit is what tells it is done.
    await r.call('SHUTDOWN').catch(() => undefined);
    r.disconnect();
    const timer = setTimeout(() => c.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };

  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    async restart(downMs = 1_000) {
      await shutdown();
      await new Promise((res) => setTimeout(res, downMs));
      await launch();
      restarts++;
    },
    restarts: () => restarts,
    async stop() {
      await shutdown();
      if (ownDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
