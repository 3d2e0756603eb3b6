import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { accountPrefix } from '../../config/accounts.js';
import { STREAMS } from '../../jobs/kinds.js';
import { startFeedServer, type FeedServer } from '../../src/feed/feed-server.js';
import { readBreaker } from '../../src/queue/hold/refusal-state.js';
import { redisKeys } from '../../src/redis/connection.js';
import { shardKeys } from '../../src/queue/dispatch/ready-set.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { baseEnv } from '../cli/run-cli.js';
import { startWorkerProcess, type WorkerProcess } from '../cli/worker-process.js';
import { connect, deletePrefix, redisUrl, uniquePrefix } from '../helpers/redis.js';

/** One account of a test: its own sandbox (with its own credentials) and its own feed. */
export interface TestAccount {
  name: string;
  sandbox: Sandbox;
  feed: FeedServer;
  key: string;
  secret: string;
  token: string;
  /** Its Redis keys' prefix (config/accounts.ts's accountPrefix). */
  prefix: string;
  orders: Queue;
  /** What the account's object in ACCOUNTS_FILE holds. */
  settings: Record<string, string>;
}

/** Several accounts, each against its own sandbox, over one Redis, and the ACCOUNTS_FILE that names them. */
export interface AccountsWorld {
  base: string;
  redis: Redis;
  dir: string;
  file: string;
  accounts: Map<string, TestAccount>;
  env: Record<string, string>;
  workers: WorkerProcess[];
  add(name: string): Promise<TestAccount>;
  /** Writes ACCOUNTS_FILE (a new file renamed over the old, as an editor or a ConfigMap does) naming these accounts. */
  writeFile(names: string[]): void;
  startWorker(extra?: Record<string, string>): WorkerProcess;
  paused(name: string): Promise<boolean>;
  close(): Promise<void>;
}

export async function accountsWorld(name: string): Promise<AccountsWorld> {
  const redis = connect();
  const base = uniquePrefix(name);
  const dir = mkdtempSync(join(tmpdir(), 'isync-accounts-'));
  const file = join(dir, 'accounts.json');
  const accounts = new Map<string, TestAccount>();
  const workers: WorkerProcess[] = [];
  const env: Record<string, string> = {
    ...baseEnv(),
    REDIS_URL: redisUrl(),
    QUEUE_PREFIX: base,
    ACCOUNTS_FILE: file,
    ACCOUNTS_RELOAD_SECONDS: '1',
    INVENTORY_POST_PER_MINUTE: '6000',
    INVENTORY_GET_PER_MINUTE: '6000',
    INVENTORY_COLLECTION_PER_HOUR: '3000',
    CATALOG_REFRESH_SECONDS: '0',
    RETRY_BASE_DELAY_MS: '100',
    RETRY_MAX_DELAY_MS: '500',
    ORDER_POLL_SECONDS: '1',
    JOB_LOCK_SECONDS: '5',
    SHUTDOWN_GRACE_SECONDS: '5',
    WORKER_HTTP_PORT: '0',
    LOG_LEVEL: 'info',
  };
  const world: AccountsWorld = {
    base,
    redis,
    dir,
    file,
    accounts,
    env,
    workers,
    async add(account) {
      const n = accounts.size;
      const [key, secret, token] = [`key-${account}-${n}9f`, `sec-${account}-${n}4c1e`, `tok-${account}-${n}7d2b`];
      const sandbox = await startSandbox({ port: 0, data: 'demo', key, secret });
      const feed = await startFeedServer({ names: STREAMS, port: 0, streams: {}, token });
      const prefix = accountPrefix(base, account);
      const a: TestAccount = {
        name: account,
        sandbox,
        feed,
        key,
        secret,
        token,
        prefix,
        orders: new Queue('orders', { connection: redis, prefix }),
        settings: {
          INVENTORY_BASE_URL: sandbox.url,
          INVENTORY_ACCOUNT: sandbox.account,
          INVENTORY_API_KEY: key,
          INVENTORY_API_SECRET: secret,
          UPSTREAM_URL: feed.url,
          UPSTREAM_TOKEN: token,
        },
      };
      accounts.set(account, a);
      return a;
    },
    writeFile(names) {
      const doc = { accounts: Object.fromEntries(names.map((n) => [n, accounts.get(n)!.settings])) };
      writeFileSync(`${file}.tmp`, JSON.stringify(doc, null, 2));
      renameSync(`${file}.tmp`, file);
    },
    startWorker(extra = {}) {
      const w = startWorkerProcess({ ...env, ...extra });
      workers.push(w);
      return w;
    },
    async paused(account) {
      const a = accounts.get(account)!;
      return (await readBreaker(redis, redisKeys(a.prefix), 'orders')).paused || (await a.orders.isPaused());
    },
    async close() {
      for (const w of workers) await w.stop();
      for (const a of accounts.values()) {
        await a.orders.close();
        await deletePrefix(redis, a.prefix);
        await a.feed.close();
        await a.sandbox.close();
      }
      // The deployment's own keys: its ready set's shards, the sweep's lock and summary (src/queue/dispatch/), the
      // minutes it ran (src/ops/flow-minutes.ts).
      for (let shard = 0; shard < 8; shard++) await redis.del(...Object.values(shardKeys(base, shard)));
      await redis.del(`${base}~sweep`, `${base}~deployment`, `${base}~minutes`);
      redis.disconnect();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return world;
}

/** The worker's log lines, parsed (JSON lines; others skipped). */
export function logLines(w: WorkerProcess): Array<Record<string, unknown>> {
  return w.stdoutLines.flatMap((l) => {
    try {
      return [JSON.parse(l) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

/** Feed→completed of each order job completed (ms), from when its record was appended to the feed. */
export async function latencies(a: TestAccount, appendedAt: ReadonlyMap<string, number>): Promise<number[]> {
  const jobs = await a.orders.getJobs(['completed'], 0, -1);
  const idOf = (data: unknown) => (data as { record?: { orderId?: string } }).record?.orderId ?? '';
  return jobs.filter((j) => appendedAt.has(idOf(j.data))).map((j) => j.finishedOn! - appendedAt.get(idOf(j.data))!);
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
