/**
 * A redis-server of our own, for the demo, the test suite, the benchmarks and the chaos run (one helper for all):
 * on a free port, in a folder of its own, stopped (and its folder removed) by `stop()` or, at the latest, when
 * this process exits, so that no server outlives the run that started it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
import { defaults } from '../../config/defaults.js';
import { UnreachableError } from '../errors/unreachable-error.js';
import { safeRedisUrl } from './connection.js';
import { freePort } from '../net/free-port.js';

export const INSTALL_REDIS_HINT =
  'Install Redis: `sudo apt-get install redis-server` (Debian/Ubuntu) or `brew install redis` (macOS); ' +
  'or set REDIS_URL to a Redis you have.';

/** Where an executable is on PATH, if anywhere. */
export function findOnPath(command: string, path: string | undefined = process.env.PATH): string | undefined {
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

export interface RedisServer {
  /** With the password when it has one; `rediss://` when it speaks TLS. */
  url: string;
  port: number;
  /** What a client needs besides the url (the CA of a TLS server). */
  clientOptions: RedisOptions;
  /** Folder holding its data (AOF when persisted, nodes.conf on a cluster) and redis.log. */
  dir: string;
  /** SHUTDOWN (the AOF flushed), stay down for `downMs`, start again on the same port and folder. */
  restart(downMs?: number): Promise<void>;
  /** Times restart() has completed. */
  restarts(): number;
  /** Stops it and removes its folder (unless the folder was given). */
  stop(): Promise<void>;
}

export interface RedisServerOptions {
  /** Default: a fresh folder under the OS temp dir, removed by stop(). */
  dir?: string;
  port?: number;
  /** Path of redis-server. Default: found on PATH. */
  binary?: string;
  /** Append-only file, so that a graceful restart loses nothing (the chaos run). Default false: no persistence. */
  persist?: boolean;
  /** More redis-server arguments, e.g. `--cluster-enabled yes`, or `--sentinel` with a configFile. */
  args?: string[];
  /** A config file, read before the arguments (a sentinel's, which it rewrites). */
  configFile?: string;
  /** How long it may take to answer PING, ms. Default 15 000. */
  startTimeoutMs?: number;
  /** A password (requirepass, and masterauth for a replica or a cluster node); the url then holds it. For tests: it shows in `ps`. */
  password?: string;
  /** TLS only, on the port (no plain port): the url is rediss://; clients need not show a certificate. */
  tls?: RedisServerTls;
}

/** PEM files of a TLS server, and the CA's certificate its clients trust. */
export interface RedisServerTls {
  certFile: string;
  keyFile: string;
  caFile: string;
  /** The CA's certificate (PEM). */
  ca: string;
}

/** Resolves once a Redis at `url` answers PING (not LOADING), or rejects after timeoutMs. */
export async function waitForPing(url: string, timeoutMs: number, options: RedisOptions = {}): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1000, ...options });
    r.on('error', () => undefined);
    try {
      await r.connect();
      if ((await r.ping()) === 'PONG') return;
    } catch {
      // not up yet
    } finally {
      r.disconnect();
    }
    if (Date.now() > until) throw new Error(`no answer from ${safeRedisUrl(url)} within ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** Starts a private redis-server and waits until it answers PING. */
export async function startRedisServer(o: RedisServerOptions = {}): Promise<RedisServer> {
  const ownDir = o.dir === undefined;
  const dir = o.dir ?? mkdtempSync(join(tmpdir(), 'isync-redis-'));
  mkdirSync(dir, { recursive: true });
  const port = o.port ?? (await freePort());
  const binary = o.binary ?? findOnPath('redis-server') ?? 'redis-server';
  const auth = o.password ? `:${encodeURIComponent(o.password)}@` : '';
  const url = `${o.tls ? 'rediss' : 'redis'}://${auth}127.0.0.1:${port}`;
  const clientOptions: RedisOptions = o.tls ? { tls: { ca: [o.tls.ca] } } : {};
  const args = serverArgs(o, port, dir);
  let child: ChildProcess | undefined;
  let restarts = 0;
  // The last resort against an orphan: a parent that exits without stop() (process.exit, an uncaught error) takes it along.
  const onExit = () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (ownDir) rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', onExit);
  const launch = async () => {
    child = spawn(binary, args, { stdio: 'ignore' });
    await untilAnswering(child, binary, dir, waitForPing(url, o.startTimeoutMs ?? defaults.redisStartTimeoutMs, clientOptions));
  };
  const stop = async () => {
    await shutdown(child, url, clientOptions);
    process.off('exit', onExit);
    if (ownDir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    await launch();
  } catch (err) {
    child?.kill('SIGKILL');
    await stop();
    throw err;
  }
  return {
    url,
    port,
    clientOptions,
    dir,
    async restart(downMs = 1_000) {
      await shutdown(child, url, clientOptions);
      await new Promise((res) => setTimeout(res, downMs));
      await launch();
      restarts++;
    },
    restarts: () => restarts,
    stop,
  };
}

/** redis-server's arguments: where it listens (TLS only, or plain), its password, folder, persistence and log. */
function serverArgs(o: RedisServerOptions, port: number, dir: string): string[] {
  const listen = o.tls
    ? ['--port', '0', '--tls-port', String(port), '--tls-cert-file', o.tls.certFile, '--tls-key-file', o.tls.keyFile]
    : ['--port', String(port)];
  if (o.tls) listen.push('--tls-ca-cert-file', o.tls.caFile, '--tls-auth-clients', 'no');
  const password = o.password ? ['--requirepass', o.password, '--masterauth', o.password] : [];
  const persistence = o.persist ? ['--appendonly', 'yes', '--appendfsync', 'everysec'] : ['--appendonly', 'no'];
  return [
    ...(o.configFile ? [o.configFile] : []),
    ...listen,
    ...password,
    ...['--bind', '127.0.0.1', '--dir', dir, ...persistence, '--save', '', '--daemonize', 'no'],
    ...['--logfile', join(dir, 'redis.log'), '--protected-mode', 'yes', ...(o.args ?? [])],
  ];
}

/** Waits for `ping` (the server answering), or rejects as soon as the process fails to start or exits. */
async function untilAnswering(c: ChildProcess, binary: string, dir: string, ping: Promise<void>): Promise<void> {
  const failed = new Promise<never>((_, reject) => {
    c.once('error', (err) => reject(new Error(`could not start ${binary}: ${err.message}`)));
    c.once('exit', (code) => reject(new Error(`${binary} exited with code ${code} at start (see ${join(dir, 'redis.log')})`)));
  });
  failed.catch(() => undefined);
  await Promise.race([ping, failed]);
}

/** SHUTDOWN (the AOF flushed) and wait for the exit; killed when it takes over 15 s. Nothing to do when it is not running. */
async function shutdown(c: ChildProcess | undefined, url: string, clientOptions: RedisOptions): Promise<void> {
  if (!c || c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise<void>((res) => c.once('exit', () => res()));
  const r = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null, ...clientOptions });
  r.on('error', () => undefined);
  // SHUTDOWN closes the connection instead of answering; the exit is what tells it is done.
  await r.call('SHUTDOWN').catch(() => undefined);
  r.disconnect();
  const timer = setTimeout(() => c.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

export interface RedisForRun {
  url: string;
  /** True when a private redis-server was started (stopped by `stop`). */
  private: boolean;
  stop(): Promise<void>;
}

/**
 * Redis for a run (the demo, the test suite): the one at `url` when it answers; otherwise a private
 * redis-server from PATH on a free port, without persistence; otherwise UnreachableError saying how to get one.
 */
export async function redisForRun(url: string, path: string | undefined = process.env.PATH): Promise<RedisForRun> {
  try {
    await waitForPing(url, 1000);
    return { url, private: false, stop: async () => undefined };
  } catch {
    // none answers: start our own
  }
  const binary = findOnPath('redis-server', path);
  if (!binary)
    throw new UnreachableError('Redis', safeRedisUrl(url), `No Redis answers and redis-server is not installed. ${INSTALL_REDIS_HINT}`);
  try {
    const server = await startRedisServer({ binary });
    return { url: server.url, private: true, stop: () => server.stop() };
  } catch (err) {
    throw new UnreachableError(
      'Redis',
      safeRedisUrl(url),
      `No Redis answers, and redis-server (${binary}) did not start: ${(err as Error).message}. ${INSTALL_REDIS_HINT}`,
    );
  }
}
