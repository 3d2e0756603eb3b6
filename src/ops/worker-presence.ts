import { hostname } from 'node:os';
import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';

/** What a running worker says of itself, for `status`: whether it pulls the feed, and where it takes pushes. */
export interface WorkerPresence {
  id: string;
  /** Pulls the feed (UPSTREAM_URL set): scheduled runs are its. */
  pulls: boolean;
  /** The receiver's URL when it takes pushes (INGEST_PORT), else null. */
  ingest: string | null;
  /** Epoch ms of its last word. */
  seenAt: number;
}

/** How often a worker says it runs; one silent three times as long is gone (killed, frozen). */
const EVERY_MS = 20_000;
const GONE_MS = 3 * EVERY_MS;

/**
 * Where the `worker` processes of ACCOUNTS_FILE say they run (a hash under the deployment's QUEUE_PREFIX): each serves
 * every account of the file, and an account's own hash has a process only while its turn is open there.
 */
export const deploymentWorkersKey = (base: string) => `${base}~workers`;

/** The deployment's key for an account of ACCOUNTS_FILE (its configuration names it), else undefined. */
export const deploymentWorkersOf = (config: { accountName?: string; dispatch: { base: string } }) =>
  config.accountName === undefined ? undefined : deploymentWorkersKey(config.dispatch.base);

/** Says in Redis that this worker runs (and how) until stopped; a failed write is tried again at the next beat. */
export function startWorkerPresence(
  redis: Redis,
  keys: Pick<RedisKeys, 'workers'>,
  me: Pick<WorkerPresence, 'pulls' | 'ingest'>,
): { stop(): Promise<void> } {
  return startPresenceAt(redis, keys.workers(), me);
}

/** Says in the hash `key` that this worker runs (and how) until stopped. */
export function startPresenceAt(redis: Redis, key: string, me: Pick<WorkerPresence, 'pulls' | 'ingest'>): { stop(): Promise<void> } {
  const id = `${hostname()}:${process.pid}`;
  const beat = () =>
    redis
      .multi()
      .hset(key, id, JSON.stringify({ ...me, seenAt: Date.now() }))
      .pexpire(key, GONE_MS)
      .exec()
      .catch(() => undefined);
  void beat();
  const timer = setInterval(() => void beat(), EVERY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await redis.hdel(key, id).catch(() => undefined);
    },
  };
}

/**
 * The workers that said they run within the last minute: the account's own, and with `deployment` (an account of
 * ACCOUNTS_FILE: deploymentWorkersOf) the deployment's processes, which take its work when it has some.
 */
export async function readWorkers(
  redis: Redis,
  keys: Pick<RedisKeys, 'workers'>,
  now = Date.now(),
  deployment?: string,
): Promise<WorkerPresence[]> {
  const all = {
    ...(deployment === undefined ? {} : await redis.hgetall(deployment)),
    ...(await redis.hgetall(keys.workers())),
  };
  const out: WorkerPresence[] = [];
  for (const [id, raw] of Object.entries(all)) {
    try {
      const p = JSON.parse(raw) as Omit<WorkerPresence, 'id'>;
      if (now - p.seenAt <= GONE_MS) out.push({ id, pulls: p.pulls === true, ingest: p.ingest ?? null, seenAt: p.seenAt });
    } catch {
      // Not ours to read: ignored.
    }
  }
  return out;
}
