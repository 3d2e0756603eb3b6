import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monitorOf } from '../helpers/redis.js';
import { readFeedState } from '../../src/feed/feed-state.js';
import { redisKeys } from '../../src/redis/connection.js';
import { eventually, freePort, type WorkerProcess } from '../cli/worker-process.js';
import { accountsWorld, type AccountsWorld } from './accounts-kit.js';

/**
 * Issue 56: an account that pulls a feed holds, between its turns, its pulls alone: no metrics registry. Its series
 * are read from Redis when asked for (`/metrics?account=NAME`), and a scrape of the process's /metrics reads no queue
 * of an idle account that pulls, as of one that takes pushes only (the deployment's summary tells its trouble).
 */
let world: AccountsWorld;
let worker: WorkerProcess;
let url: string;

beforeAll(async () => {
  world = await accountsWorld('accounts-pulls-metrics');
  await world.add('wayne');
  await world.add('stark');
  world.writeFile(['wayne', 'stark']);
  worker = world.startWorker({ ORDER_POLL_SECONDS: '1', WORKER_HTTP_PORT: String(await freePort()), WORKER_HTTP_HOST: '127.0.0.1' });
  url = await worker.httpUrl;
  // Both polled: their feeds' cursors stored, their polls quiet since.
  for (const name of ['wayne', 'stark']) {
    const keys = redisKeys(world.accounts.get(name)!.prefix);
    await eventually(async () => (await readFeedState(world.redis, keys, 'orders')).caughtUpAt !== undefined, 20_000, `${name} polled`);
  }
});
afterAll(async () => {
  await world?.close();
});

/** The commands Redis ran while `fn` ran, as MONITOR shows them (each command's words, keys included). */
async function commandsDuring(fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const monitor = await monitorOf(world.redis, (args) => seen.push(args.join(' ')));
  try {
    await fn();
    // MONITOR's lines trail the commands a little.
    await new Promise((r) => setTimeout(r, 300));
  } finally {
    monitor.disconnect();
  }
  return seen;
}

describe('worker with ACCOUNTS_FILE: an account that pulls, between its turns', () => {
  it("answers its series by name from Redis: its feed's lag and its queues, no connection of its own", async () => {
    const res = await fetch(`${url}/metrics?account=wayne`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/^isync_feed_lag_seconds\{stream="orders",account="wayne"\} \d/m);
    expect(text).toMatch(/^isync_queue_jobs\{stream="orders",state="waiting",account="wayne"\} 0$/m);
    expect(text).not.toMatch(/account="stark"/);
  });

  it("is not read at a scrape of the process's /metrics: no command on its queues' keys", async () => {
    const queueKeys = (line: string) =>
      ['wayne', 'stark'].some((n) => new RegExp(`${world.accounts.get(n)!.prefix}\\}?:(orders|boms|stock-counts):`).test(line));
    // Several scrapes: the accounts read in turn at each (a registry of their own) would be read within them.
    const seen = await commandsDuring(async () => {
      for (let i = 0; i < 3; i++) expect((await fetch(`${url}/metrics`)).status).toBe(200);
    });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter(queueKeys)).toEqual([]);
  });
});
