import type { RedisConnection as Redis } from '../../redis/connection.js';

// The ready set's keys (ready-set.ts tells what each holds), shared by its commands and its leases' (ready-leases.ts).

/** The keys of one shard. */
export interface ShardKeys {
  ready: string;
  lease: string;
  pass: string;
  vt: string;
  /** Which process holds each lease (its ready set's `owner`): only it renews, keeps or releases it. */
  owner: string;
}

/** The shard of an account (FNV-1a of its name): the same in every process, whatever the order of ACCOUNTS_FILE. */
export function shardOf(account: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < account.length; i++) {
    h ^= account.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % shards;
}

/** A shard's keys under the deployment's base prefix (QUEUE_PREFIX without braces). */
export function shardKeys(base: string, shard: number): ShardKeys {
  const tag = `{${base.replace(/[{}]/g, '')}~ready~${shard}}`;
  return { ready: `${tag}:ready`, lease: `${tag}:lease`, pass: `${tag}:pass`, vt: `${tag}:vt`, owner: `${tag}:owner` };
}

/** What the ready set's commands share: the process's connection, the deployment's base and shards, its owner name. */
export interface ReadyContext {
  redis: Redis;
  base: string;
  shards: number;
  owner: string;
}
