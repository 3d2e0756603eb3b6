import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { readConfig } from '../../config/read-config.js';
import { createRedis, deleteKeysUnder, type RedisConnection, type RedisNode, type RedisTarget } from '../../src/redis/connection.js';
import type { Redis, RedisOptions } from 'ioredis';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The single Redis of the run (test/global-setup.ts): REDIS_URL, or a private redis-server. */
    redisUrl: string;
    /** In the `cluster` project (test/setup/cluster-setup.ts): the local Redis Cluster the project runs on. */
    redisCluster?: {
      /** The first node, the only seed given to the client. */
      seed: RedisNode;
      nodes: RedisNode[];
      /** A hash tag whose slot lives on another node than the seed: every test prefix starts with it. */
      tag: string;
      /** The nodes' password. */
      password?: string;
    };
    /**
     * In the projects whose Redis is not the single one (`cluster`, `tls`, `sentinel`): the settings that reach it,
     * as an operator would give them (REDIS_CLUSTER_NODES=redis://:pw@..., REDIS_URL=rediss://..., REDIS_TLS_CA_FILE...).
     */
    redisSettings?: Record<string, string>;
  }
}

/** The single Redis the suite runs against (also in the cluster project, for what needs one server). */
export function redisUrl(): string {
  return inject('redisUrl');
}

/**
 * Where the world of a test lives: the project's Redis (a cluster, a TLS Redis...) as the program's configuration
 * reads its settings, else the single Redis.
 */
export function redisTarget(): RedisTarget {
  const settings = inject('redisSettings');
  if (!settings) return { url: redisUrl() };
  const { prefix: _prefix, prefixGiven: _given, ...target } = readConfig(settings).redis;
  return target;
}

/** The environment that points a child process (the CLI, a fixture) at redisTarget(). */
export function redisEnv(): Record<string, string> {
  return inject('redisSettings') ?? { REDIS_URL: redisUrl() };
}

/**
 * A fresh key prefix per test, so tests never see each other's queues or keys. On the cluster it starts with
 * a hash tag whose slot is on another node than the seed, so every command needs the client to follow MOVED.
 */
export function uniquePrefix(name = 't'): string {
  const cluster = inject('redisCluster');
  return `${cluster ? `{${cluster.tag}}` : ''}test-${name}-${randomBytes(4).toString('hex')}`;
}

/** A connection to the single Redis. */
export function connect(): Redis {
  return createRedis(redisUrl());
}

/** A connection to redisTarget(): a cluster connection in the `cluster` project. */
export function connectTarget(): RedisConnection {
  return createRedis(redisTarget());
}

/** Deletes every key under a prefix. */
export async function deletePrefix(redis: RedisConnection, prefix: string): Promise<void> {
  await deleteKeysUnder(redis, prefix);
}

const DEFAULT_REDIS = new Set(['127.0.0.1:6379', 'localhost:6379', '[::1]:6379']);

/**
 * Node arguments that make a child process refuse the default Redis address (test/setup/default-redis-guard.mjs),
 * when the run's Redis is elsewhere: none when it is the default (a developer's own Redis at 6379).
 */
export function defaultRedisGuard(): string[] {
  const u = new URL(redisUrl());
  if (DEFAULT_REDIS.has(`${u.hostname}:${u.port || '6379'}`)) return [];
  return ['--import', new URL('../setup/default-redis-guard.mjs', import.meta.url).href];
}

/**
 * A MONITOR connection beside `redis` (its options), for a test that watches the commands others send. ioredis's own
 * `monitor()` can fail to start when another client's command is echoed in the same read as MONITOR's answer ("Command
 * queue state error": the line is taken for a reply), and it leaves that connection open: this one starts again then
 * (3 tries), and a later such line is a line missed, not an error thrown in the test. Every line of the same read after
 * the first is taken for a reply too: each is an 'error' event, which a connection with no listener left throws as an
 * uncaught exception (105 of them once, failing a run whose tests all passed), so a listener stays from the start.
 */
export async function monitorOf(redis: Redis, onLine: (args: string[]) => void): Promise<Redis> {
  for (let attempt = 1; ; attempt++) {
    const monitor = redis.duplicate({ monitor: true, lazyConnect: false } as RedisOptions);
    monitor.on('error', () => undefined);
    try {
      await new Promise<void>((resolve, reject) => {
        monitor.once('error', reject);
        monitor.once('monitoring', () => resolve());
      });
      monitor.on('monitor', (_time: string, args: string[]) => onLine(args));
      return monitor;
    } catch (err) {
      monitor.disconnect();
      if (attempt >= 3) throw err;
    }
  }
}
