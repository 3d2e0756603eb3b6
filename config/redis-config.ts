import { readFileSync } from 'node:fs';
import { clusterPrefix } from './redis-target.js';
import type { RedisTarget } from './redis-target.js';
import type { Env } from './schema.js';

/** Redis, and the prefix of every key the program writes there. */
export interface RedisConfig extends RedisTarget {
  prefix: string;
  /** QUEUE_PREFIX as given, when it had no hash tag and `prefix` is it wrapped in one for the cluster. */
  prefixGiven?: string;
}

type RedisEnv = Pick<
  Env,
  | 'REDIS_URL'
  | 'REDIS_CLUSTER_NODES'
  | 'REDIS_PASSWORD'
  | 'REDIS_TLS_CA_FILE'
  | 'REDIS_SENTINELS'
  | 'REDIS_SENTINEL_NAME'
  | 'REDIS_SENTINEL_PASSWORD'
  | 'QUEUE_PREFIX'
>;

/** Only the fields that are set (so that equality checks and logs do not show `undefined`). */
function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== false && v !== '')) as Partial<T>;
}

function decoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The user, password, TLS and database of REDIS_URL, for Sentinel's primary (its host is Sentinel's to say). */
function urlParts(url: string, problems: string[]): Pick<RedisTarget, 'username' | 'password' | 'tls' | 'db'> {
  if (!URL.canParse(url)) return {};
  const u = new URL(url);
  const path = u.pathname.replace(/^\//, '');
  if (path && !/^\d+$/.test(path)) problems.push('REDIS_URL: its path must be a database number, such as /0');
  return {
    username: decoded(u.username),
    password: decoded(u.password),
    tls: u.protocol === 'rediss:',
    db: path ? Number(path) : undefined,
  };
}

/** The private CA's certificate(s), or a problem; the path is shown, never the content. */
function readCa(path: string, problems: string[]): string | undefined {
  try {
    const pem = readFileSync(path, 'utf8');
    if (pem.includes('-----BEGIN CERTIFICATE-----')) return pem;
    problems.push(`REDIS_TLS_CA_FILE: ${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  } catch (err) {
    problems.push(`REDIS_TLS_CA_FILE: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return undefined;
}

/**
 * Where Redis is, from the checked environment: one server, a cluster (the prefix put in a hash tag, since every key
 * of a prefix must live in one slot), or Sentinel's primary; with `problems`, one line per setting that does not fit.
 */
export function redisConfigOf(e: RedisEnv): { redis: RedisConfig; problems: string[] } {
  const problems: string[] = [];
  const nodes = e.REDIS_CLUSTER_NODES;
  const sentinels = e.REDIS_SENTINELS;
  if (sentinels && nodes)
    problems.push('REDIS_SENTINELS: cannot be used with REDIS_CLUSTER_NODES (a Redis Cluster fails over by itself): set one of them');
  if (sentinels && !e.REDIS_SENTINEL_NAME)
    problems.push('REDIS_SENTINEL_NAME: is required with REDIS_SENTINELS (the name the sentinels monitor the primary under)');
  for (const name of ['REDIS_SENTINEL_NAME', 'REDIS_SENTINEL_PASSWORD'] as const) {
    if (e[name] && !sentinels) problems.push(`${name}: is used only with REDIS_SENTINELS; set REDIS_SENTINELS too, or unset it`);
  }
  const tlsCa = e.REDIS_TLS_CA_FILE ? readCa(e.REDIS_TLS_CA_FILE, problems) : undefined;

  let redis: RedisConfig;
  if (nodes) {
    const tagged = clusterPrefix(e.QUEUE_PREFIX);
    if (e.REDIS_PASSWORD && nodes.password) problems.push('REDIS_PASSWORD: REDIS_CLUSTER_NODES holds a password too; give it once');
    redis = {
      url: e.REDIS_URL,
      clusterNodes: nodes.nodes,
      ...defined({ username: nodes.username, password: nodes.password ?? e.REDIS_PASSWORD, tls: nodes.tls, tlsCa }),
      prefix: tagged,
      ...(tagged === e.QUEUE_PREFIX ? {} : { prefixGiven: e.QUEUE_PREFIX }),
    };
  } else {
    const fromUrl = urlParts(e.REDIS_URL, sentinels ? problems : []);
    if (e.REDIS_PASSWORD && fromUrl.password) problems.push('REDIS_PASSWORD: REDIS_URL holds a password too; give it once');
    const sentinel =
      sentinels && e.REDIS_SENTINEL_NAME
        ? { nodes: sentinels.nodes, name: e.REDIS_SENTINEL_NAME, ...defined({ password: e.REDIS_SENTINEL_PASSWORD, tls: sentinels.tls }) }
        : undefined;
    const data = sentinel ? { ...fromUrl, password: fromUrl.password || e.REDIS_PASSWORD } : { password: e.REDIS_PASSWORD };
    redis = { url: e.REDIS_URL, ...(sentinel ? { sentinel } : {}), ...defined({ ...data, tlsCa }), prefix: e.QUEUE_PREFIX };
  }
  const usesTls = redis.tls || redis.sentinel?.tls || (!nodes && !sentinels && e.REDIS_URL.startsWith('rediss://'));
  if (e.REDIS_TLS_CA_FILE && !usesTls)
    problems.push('REDIS_TLS_CA_FILE: is used only with TLS: rediss:// in REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS');
  return { redis, problems };
}
