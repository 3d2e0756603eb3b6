/**
 * A real Redis Cluster on this machine, for the test suite and the scale-out benchmark: `masters` redis-servers
 * started with `--cluster-enabled yes` on free ports (src/redis/embedded-server.ts), joined by `redis-cli --cluster create`,
 * ready once every node reports `cluster_state:ok`; stop() stops them and removes their folders.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import type { RedisNode, RedisTarget } from '../../src/redis/connection.js';
import { findOnPath, startRedisServer, type RedisServer } from '../../src/redis/embedded-server.js';

const run = promisify(execFile);

export interface LocalCluster {
  /** Every node, in the order `redis-cli --cluster create` got them (the first holds slots 0 to 16384/masters). */
  nodes: RedisNode[];
  /** The first node as the only seed: the client finds the others itself (with the password, when there is one). */
  target: RedisTarget;
  /** The nodes' password, when started with one. */
  password?: string;
  /** The node that serves a key's slot (asked of the cluster: CLUSTER KEYSLOT, CLUSTER SLOTS). */
  ownerOf(key: string): Promise<RedisNode>;
  stop(): Promise<void>;
}

function listens(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A free port whose cluster bus port (port + 10000) is free too. */
async function freeClusterPort(taken: Set<number>): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = 20_000 + Math.floor(Math.random() * 25_000);
    if (taken.has(port) || taken.has(port + 10_000)) continue;
    if ((await listens(port)) && (await listens(port + 10_000))) return port;
  }
  throw new Error('no free port pair (port, port + 10000) for a cluster node');
}

async function clusterInfo(node: RedisNode, password?: string): Promise<string> {
  const r = new Redis({ ...node, password, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return String(await r.call('CLUSTER', 'INFO'));
  } finally {
    r.disconnect();
  }
}

/** The node that serves a key's slot, as the cluster of `seed` says (CLUSTER KEYSLOT, CLUSTER SLOTS). */
export async function slotOwner(seed: RedisNode, key: string, password?: string): Promise<RedisNode> {
  const r = new Redis({ ...seed, password, maxRetriesPerRequest: 0 });
  try {
    const slot = Number(await r.call('CLUSTER', 'KEYSLOT', key));
    const ranges = (await r.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number, ...unknown[]]]>;
    const range = ranges.find(([from, to]) => slot >= from && slot <= to);
    if (!range) throw new Error(`no node serves slot ${slot}`);
    return { host: range[2][0] || seed.host, port: range[2][1] };
  } finally {
    r.disconnect();
  }
}

/** Starts the nodes (with a password when given), creates the cluster (no replicas) and waits until every node serves every slot. */
export async function startLocalCluster(o: { masters?: number; timeoutMs?: number; password?: string } = {}): Promise<LocalCluster> {
  const masters = o.masters ?? 3;
  const redisCli = findOnPath('redis-cli');
  if (!redisCli) throw new Error('redis-cli is not installed (Debian: `sudo apt-get install redis-tools`, macOS: `brew install redis`)');
  const servers: RedisServer[] = [];
  const stop = async () => {
    await Promise.all(servers.map((s) => s.stop().catch(() => undefined)));
  };
  try {
    const taken = new Set<number>();
    for (let i = 0; i < masters; i++) {
      const port = await freeClusterPort(taken);
      taken.add(port).add(port + 10_000);
      servers.push(
        await startRedisServer({
          port,
          password: o.password,
          args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '5000'],
        }),
      );
    }
    const nodes = servers.map((s) => ({ host: '127.0.0.1', port: s.port }));
    // REDISCLI_AUTH rather than -a: redis-cli warns of a password on its command line.
    const env = o.password ? { ...process.env, REDISCLI_AUTH: o.password } : process.env;
    await run(redisCli, ['--cluster', 'create', ...nodes.map((n) => `${n.host}:${n.port}`), '--cluster-replicas', '0', '--cluster-yes'], {
      timeout: 30_000,
      env,
    });
    const until = Date.now() + (o.timeoutMs ?? 20_000);
    for (;;) {
      const infos = await Promise.all(nodes.map((n) => clusterInfo(n, o.password)));
      if (
        infos.every(
          (i) => /cluster_state:ok/.test(i) && /cluster_slots_ok:16384/.test(i) && new RegExp(`cluster_known_nodes:${masters}\\b`).test(i),
        )
      )
        break;
      if (Date.now() > until) throw new Error(`the cluster of ${nodes.map((n) => n.port).join(', ')} did not reach cluster_state:ok`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return {
      nodes,
      target: { url: `redis://127.0.0.1:${nodes[0]!.port}`, clusterNodes: [nodes[0]!], ...(o.password ? { password: o.password } : {}) },
      ...(o.password ? { password: o.password } : {}),
      ownerOf: (key) => slotOwner(nodes[0]!, key, o.password),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
