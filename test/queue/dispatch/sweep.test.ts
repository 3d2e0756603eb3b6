import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { sweepOnce, type SweepOptions } from '../../../src/queue/dispatch/sweep.js';
import { deploymentKey } from '../../../src/queue/dispatch/deployment-summary.js';
import { connect, uniquePrefix } from '../../helpers/redis.js';
import { createLogger } from '../../../src/log/logger.js';

/**
 * Issue 56: the sweep (src/queue/dispatch/sweep.ts) on a real Redis. One process of the deployment sweeps a period (a
 * lock); a `worker --account NAME` process sweeps its one account under a lock of its own, so it neither keeps the
 * whole file's processes from sweeping nor writes its one account's figures as the deployment's summary.
 */
let redis: Redis;
const bases: string[] = [];

beforeAll(() => {
  redis = connect();
});
afterAll(async () => {
  for (const base of bases) {
    const keys = await redis.keys(`${base}*`);
    if (keys.length) await redis.del(...keys);
  }
  redis.disconnect();
});

function options(base: string, names: string[], only?: string): SweepOptions & { marked: string[] } {
  const marked: string[] = [];
  return {
    redis: redis as unknown as SweepOptions['redis'],
    base,
    everyMs: 60_000,
    accounts: () => names.map((name) => ({ name, prefix: `${base}:${name}` })),
    streams: ['orders'],
    mark: async (name) => {
      marked.push(name);
    },
    wakeAt: async () => {},
    lookAgainMs: 60_000,
    logger: createLogger({ level: 'silent' }),
    ...(only === undefined ? {} : { only }),
    marked,
  };
}

/** Waits for the next minute when this one has less than 5 s left: what a test does within one sweep period. */
async function withinAMinute(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 5_000) await new Promise((r) => setTimeout(r, left + 50));
}

describe('the sweep', () => {
  it('a process of one account (--account) sweeps it without taking the deployment’s period or writing its summary', async () => {
    const base = uniquePrefix('sweep');
    bases.push(base);
    await withinAMinute();
    // Work no mark told of, in two accounts: a waiting job in each one's orders queue.
    for (const name of ['acme', 'globex']) await redis.lpush(`${base}:${name}:orders:wait`, '1');

    const one = options(base, ['acme'], 'acme');
    expect(await sweepOnce(one)).toBe(1);
    expect(one.marked).toEqual(['acme']);
    expect(await redis.exists(deploymentKey(base))).toBe(0);

    // The whole file's process still sweeps this period, and its summary covers every account.
    const all = options(base, ['acme', 'globex']);
    expect(await sweepOnce(all)).toBe(2);
    expect(all.marked.sort()).toEqual(['acme', 'globex']);
    expect(await redis.hget(deploymentKey(base), 'accounts')).toBe('2');

    // Each lock holds for its period: neither sweeps again at once.
    expect(await sweepOnce(options(base, ['acme', 'globex']))).toBe(0);
    expect(await sweepOnce(options(base, ['acme'], 'acme'))).toBe(0);
  });

  it('hands its minute the accounts behind or in trouble, and sweeps a minute once whichever process asks', async () => {
    const base = uniquePrefix('sweep');
    bases.push(base);
    await withinAMinute();
    const now = Date.now();
    const iso = (ago: number) => new Date(now - ago).toISOString();
    const feed = (name: string) => `${base}:${name}:feed:orders`;
    // calm polled 2 s ago and caught up; failing caught up 20 s ago and its last poll failed; late last caught up 5
    // minutes ago (its poll every 10 s); paging's last poll found more pages; held has a record waiting (trouble).
    await redis.hset(feed('calm'), { caughtUpAt: iso(2_000), lastPollAt: iso(2_000), lastError: '' });
    await redis.hset(feed('failing'), { caughtUpAt: iso(20_000), lastPollAt: iso(1_000), lastError: 'feed answered 503' });
    await redis.hset(feed('late'), { caughtUpAt: iso(300_000), lastPollAt: iso(300_000) });
    await redis.hset(feed('paging'), { caughtUpAt: iso(15_000), lastPollAt: iso(1_000) });
    await redis.hset(`${base}:held:waiting:orders`, 'W-1', '{}');
    const names = ['calm', 'failing', 'late', 'paging', 'held'];
    const minutes: Array<{ accounts: string[]; now: number }> = [];
    const process = () => ({
      ...options(base, []),
      accounts: () => names.map((name) => ({ name, prefix: `${base}:${name}`, polled: [{ stateKey: feed(name), lateAfterMs: 40_000 }] })),
      minute: async (accounts: string[], at: number) => void minutes.push({ accounts, now: at }),
    });
    await sweepOnce(process());
    expect(minutes).toHaveLength(1);
    expect(minutes[0]!.accounts.sort()).toEqual(['failing', 'held', 'late', 'paging']);
    // A second process in the same minute sweeps nothing: the minute is sampled and marked once.
    await sweepOnce(process());
    expect(minutes).toHaveLength(1);
  });
});
