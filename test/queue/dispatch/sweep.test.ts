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

describe('the sweep', () => {
  it('a process of one account (--account) sweeps it without taking the deployment’s period or writing its summary', async () => {
    const base = uniquePrefix('sweep');
    bases.push(base);
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
});
