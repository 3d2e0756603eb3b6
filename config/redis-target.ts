/**
 * Where Redis is and how to reach it (one server, a Redis Cluster, or a primary named by Sentinel), how the
 * settings that say so are read, and how it may be shown: never with a password.
 */

export interface RedisNode {
  host: string;
  port: number;
}

/** A primary found through Redis Sentinel. */
export interface SentinelTarget {
  /** The sentinels (REDIS_SENTINELS). */
  nodes: RedisNode[];
  /** The name they monitor the primary under (REDIS_SENTINEL_NAME). */
  name: string;
  /** The sentinels' own password (REDIS_SENTINEL_PASSWORD). */
  password?: string;
  /** TLS to the sentinels (`rediss://` in REDIS_SENTINELS). */
  tls?: boolean;
}

/**
 * Where Redis is: one server (`url`), a Redis Cluster when `clusterNodes` (its seed nodes) is set, or the primary
 * Sentinel names when `sentinel` is set. The other fields hold what a cluster's or Sentinel's data nodes need.
 */
export interface RedisTarget {
  /** One server (REDIS_URL, with its user, password, `rediss://` for TLS and /db); not used with a cluster or Sentinel. */
  url: string;
  clusterNodes?: RedisNode[];
  sentinel?: SentinelTarget;
  /** The data nodes' user, when not in `url` (a cluster's URLs; with Sentinel, REDIS_URL's). */
  username?: string;
  /** The data nodes' password, when not in `url` (REDIS_PASSWORD; a cluster's URLs; with Sentinel, REDIS_URL's). */
  password?: string;
  /** TLS to a cluster's nodes or Sentinel's primary (`rediss://`); a single server's is its url's scheme. */
  tls?: boolean;
  /** A private CA (PEM) trusted beside the public ones, for TLS (REDIS_TLS_CA_FILE). */
  tlsCa?: string;
  /** Database number of Sentinel's primary (REDIS_URL's path). */
  db?: number;
}

/** Redis nodes as a setting lists them: their addresses, and the scheme and credentials all entries share. */
export interface ParsedNodes {
  nodes: RedisNode[];
  /** `rediss://`. */
  tls: boolean;
  username?: string;
  password?: string;
}

const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$/;
const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)$/;

interface Entry {
  node: RedisNode;
  tls: boolean;
  username: string;
  password: string;
}

function validPort(port: number): boolean {
  return Number.isInteger(port) && port >= 1 && port <= 65535;
}

/** One entry, `host:port` or `redis[s]://[user:password@]host[:port]`; undefined when it is neither. */
function parseEntry(part: string, defaultPort: number): Entry | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(part)) {
    const m = HOST_PORT.exec(part);
    const port = Number(m?.[2]);
    if (!m || !validPort(port)) return undefined;
    return { node: { host: m[1]!.replace(/^\[|\]$/g, ''), port }, tls: false, username: '', password: '' };
  }
  if (!URL.canParse(part)) return undefined;
  const u = new URL(part);
  if ((u.protocol !== 'redis:' && u.protocol !== 'rediss:') || !HOST.test(u.hostname)) return undefined;
  if ((u.pathname !== '' && u.pathname !== '/') || u.search || u.hash) return undefined;
  const port = u.port ? Number(u.port) : defaultPort;
  if (!validPort(port)) return undefined;
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  return {
    node: { host: u.hostname.replace(/^\[|\]$/g, ''), port },
    tls: u.protocol === 'rediss:',
    username: decode(u.username),
    password: decode(u.password),
  };
}

/**
 * `host:port,...` or `redis[s]://[user:password@]host:port,...` (REDIS_CLUSTER_NODES, REDIS_SENTINELS; `[v6]:port`
 * for IPv6), or why not. Every entry must agree on the scheme and the credentials. A problem never quotes the
 * text: it may hold a password.
 */
export function parseRedisNodes(text: string, defaultPort = 6379): ParsedNodes | { problem: string } {
  const parts = text.split(',').map((p) => p.trim());
  const entries: Entry[] = [];
  for (const [i, part] of parts.entries()) {
    const entry = parseEntry(part, defaultPort);
    if (!entry) return { problem: `entry ${i + 1} of ${parts.length} is neither host:port nor redis[s]://[user:password@]host:port` };
    entries.push(entry);
  }
  const first = entries[0]!;
  if (entries.some((e) => e.tls !== first.tls))
    return { problem: 'the entries disagree on TLS: use rediss:// for every one of them, or for none' };
  if (entries.some((e) => e.username !== first.username || e.password !== first.password)) {
    return {
      problem: 'the entries disagree on the user or password: give the same credentials in every entry (or in none, and REDIS_PASSWORD)',
    };
  }
  return {
    nodes: entries.map((e) => e.node),
    tls: first.tls,
    ...(first.username ? { username: first.username } : {}),
    ...(first.password ? { password: first.password } : {}),
  };
}

/** The nodes as `host:port,...`: no scheme, no credentials. */
export function formatClusterNodes(nodes: RedisNode[]): string {
  return nodes.map((n) => `${n.host.includes(':') ? `[${n.host}]` : n.host}:${n.port}`).join(',');
}

/** The URL without its password, fit for a message. */
export function safeRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'REDIS_URL';
  }
}

/** Where Redis is, fit for a message: the URL without its password, the cluster's seed nodes, or Sentinel's primary. */
export function describeRedis(target: RedisTarget | string): string {
  if (typeof target === 'string') return safeRedisUrl(target);
  if (target.sentinel) return `the primary "${target.sentinel.name}" of the sentinels ${formatClusterNodes(target.sentinel.nodes)}`;
  if (target.clusterNodes?.length) return `the Redis Cluster of ${formatClusterNodes(target.clusterNodes)}`;
  return safeRedisUrl(target.url);
}

/** The settings that point at the target, as an operator would write them, without a password. */
export function redisSetting(target: RedisTarget): string {
  const s = (tls?: boolean) => (tls ? 'rediss://' : '');
  if (target.sentinel) return `REDIS_SENTINELS=${formatClusterNodes(target.sentinel.nodes)} REDIS_SENTINEL_NAME=${target.sentinel.name}`;
  if (target.clusterNodes?.length)
    return `REDIS_CLUSTER_NODES=${target.clusterNodes.map((n) => `${s(target.tls)}${formatClusterNodes([n])}`).join(',')}`;
  return `REDIS_URL=${safeRedisUrl(target.url)}`;
}

/** Every password of the target (the data nodes', in its URL or not, and the sentinels'): secrets to redact. */
export function redisPasswords(target: RedisTarget): string[] {
  let inUrl = '';
  try {
    inUrl = decodeURIComponent(new URL(target.url).password);
  } catch {
    // not a URL: no password in it
  }
  return [inUrl, target.password ?? '', target.sentinel?.password ?? ''].filter((p) => p.length > 0);
}

/**
 * Whether keys that start with `prefix` hash by a tag inside it (Redis hashes by the text between the first `{`
 * and the next `}`, when not empty), so that all of them, BullMQ's included, live in one slot of a cluster.
 */
export function hasHashTag(prefix: string): boolean {
  const open = prefix.indexOf('{');
  return open >= 0 && prefix.indexOf('}', open + 1) > open + 1;
}

/** The prefix fit for a Redis Cluster: as given when it has a hash tag, else wrapped in one (`isync` → `{isync}`). */
export function clusterPrefix(prefix: string): string {
  return hasHashTag(prefix) ? prefix : `{${prefix}}`;
}
