import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { RedisNode } from '../../src/redis/connection.js';
import { findOnPath, startRedisServer, type RedisServer } from '../../src/redis/embedded-server.js';

/** A sentinel, the name it watches a primary under, and the passwords. */
export interface SentinelAccess {
  name: string;
  sentinel: RedisNode;
  /** The data nodes' password. */
  password: string;
  /** The sentinel's own password. */
  sentinelPassword: string;
}

/** A primary, its replica and a sentinel that watches them, on free ports, each with a password. */
export interface LocalSentinel extends SentinelAccess {
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > end) throw new Error(`${what} within ${timeoutMs} ms`);
    await sleep(100);
  }
}

async function askSentinel<T>(s: SentinelAccess, ask: (sentinel: Redis) => Promise<T>): Promise<T> {
  const r = new Redis({ ...s.sentinel, password: s.sentinelPassword, maxRetriesPerRequest: 1, retryStrategy: () => null });
  r.on('error', () => undefined);
  try {
    return await ask(r);
  } finally {
    r.disconnect();
  }
}

/** The primary's port, as the sentinel says now. */
export function primaryPort(s: SentinelAccess): Promise<number> {
  return askSentinel(s, async (r) => Number(((await r.call('SENTINEL', 'get-master-addr-by-name', s.name)) as [string, string])[1]));
}

/**
 * Kills the primary (SIGKILL, as a crash would) and resolves once the sentinel has promoted the replica: it waits
 * down-after-milliseconds (2 s here), then fails over.
 */
export async function killPrimary(s: SentinelAccess, timeoutMs = 20_000): Promise<{ from: number; to: number }> {
  const from = await primaryPort(s);
  const primary = new Redis({ port: from, password: s.password, maxRetriesPerRequest: 1, retryStrategy: () => null });
  primary.on('error', () => undefined);
  const pid = Number(/process_id:(\d+)/.exec(await primary.info('server'))?.[1]);
  primary.disconnect();
  if (!pid) throw new Error(`no process_id in INFO of the primary at port ${from}`);
  process.kill(pid, 'SIGKILL');
  await until('the sentinel did not name a new primary', timeoutMs, async () => (await primaryPort(s)) !== from);
  return { from, to: await primaryPort(s) };
}

/**
 * A planned failover, as managed Redis runs one in its maintenance: `SENTINEL FAILOVER <name>` (no agreement asked
 * of other sentinels, the primary left running), resolved once the sentinel names the replica the primary.
 */
export async function failOver(s: SentinelAccess, timeoutMs = 20_000): Promise<{ from: number; to: number }> {
  const from = await primaryPort(s);
  await askSentinel(s, (r) => r.call('SENTINEL', 'FAILOVER', s.name));
  await until('the sentinel did not name a new primary', timeoutMs, async () => (await primaryPort(s)) !== from);
  return { from, to: await primaryPort(s) };
}

/** The role a data node says it has now (INFO replication's `role`: master or slave). */
export async function roleOf(s: SentinelAccess, port: number): Promise<string> {
  const r = new Redis({ port, password: s.password, maxRetriesPerRequest: 1, retryStrategy: () => null });
  r.on('error', () => undefined);
  try {
    return /role:(\w+)/.exec(await r.info('replication'))?.[1] ?? 'unknown';
  } finally {
    r.disconnect();
  }
}

/**
 * Starts the primary, a replica of it and one sentinel (quorum 1: enough for `SENTINEL FAILOVER`, which needs no
 * agreement), the sentinel run by `redis-sentinel` or `redis-server --sentinel`; ready once the sentinel knows the
 * replica and the replica is in sync. stop() stops all three and removes their folders.
 */
export async function startLocalSentinel(o: { name: string; password: string; sentinelPassword: string }): Promise<LocalSentinel> {
  const servers: RedisServer[] = [];
  const sentinelDir = mkdtempSync(join(tmpdir(), 'isync-sentinel-'));
  const stop = async () => {
    await Promise.all(servers.map((s) => s.stop().catch(() => undefined)));
    rmSync(sentinelDir, { recursive: true, force: true });
  };
  try {
    const primary = await startRedisServer({ password: o.password });
    servers.push(primary);
    const replica = await startRedisServer({ password: o.password, args: ['--replicaof', '127.0.0.1', String(primary.port)] });
    servers.push(replica);
    // The sentinel rewrites its config file: one of its own, in a folder of its own.
    const configFile = join(sentinelDir, 'sentinel.conf');
    const conf = [
      `sentinel monitor ${o.name} 127.0.0.1 ${primary.port} 1`,
      `sentinel auth-pass ${o.name} ${o.password}`,
      `sentinel down-after-milliseconds ${o.name} 2000`,
      `sentinel failover-timeout ${o.name} 10000`,
    ];
    writeFileSync(configFile, `${conf.join('\n')}\n`);
    const binary = findOnPath('redis-sentinel') ?? findOnPath('redis-server');
    const sentinel = await startRedisServer({
      dir: sentinelDir,
      configFile,
      binary,
      args: binary?.endsWith('redis-sentinel') ? [] : ['--sentinel'],
      password: o.sentinelPassword,
    });
    servers.push(sentinel);
    const access: SentinelAccess = {
      name: o.name,
      sentinel: { host: '127.0.0.1', port: sentinel.port },
      password: o.password,
      sentinelPassword: o.sentinelPassword,
    };
    const replicaInSync = async (port: number) => {
      const r = new Redis({ port, password: o.password, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      r.on('error', () => undefined);
      try {
        await r.connect();
        return /master_link_status:up/.test(await r.info('replication'));
      } finally {
        r.disconnect();
      }
    };
    const knowsReplica = () => askSentinel(access, async (r) => ((await r.call('SENTINEL', 'replicas', o.name)) as unknown[]).length === 1);
    await until(
      'the sentinel did not see the replica in sync',
      20_000,
      async () => (await knowsReplica()) && (await replicaInSync(replica.port)),
    );
    return { ...access, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
