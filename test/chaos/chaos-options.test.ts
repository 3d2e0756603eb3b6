import { describe, expect, it } from 'vitest';
import { chaosSecrets, workerEnv } from '../../bench/chaos/chaos-env.js';
import { parseChaosArgs } from '../../bench/chaos/chaos-options.js';
import { sandboxBudgets } from '../../bench/chaos/chaos-world.js';
import { parseBenchArgs } from '../../bench/lib/bench-options.js';
import { sandboxDefaults } from '../../src/sandbox/sandbox-options.js';

/** The sandbox profile and the total budget, as the chaos run and the benchmarks take them. */
const where = {
  serviceUrl: 'http://127.0.0.1:1',
  account: 'chaos',
  redisUrl: 'redis://127.0.0.1:2',
  feedUrl: 'http://127.0.0.1:3',
  prefix: 'p',
};

describe('chaos options', () => {
  it('run the default profile with no total budget unless told', () => {
    const o = parseChaosArgs(['--short']);
    expect(o.profile).toBe(sandboxDefaults.profile);
    expect(o.totalPerMinute).toBeUndefined();
    expect(sandboxBudgets(o).total).toBeNull();
    expect(workerEnv(o, chaosSecrets(), where)).not.toHaveProperty('INVENTORY_REQUESTS_PER_MINUTE');
  });

  it("take --profile and --total-per-minute into the sandbox and the workers' environment", () => {
    const o = parseChaosArgs(['--short', '--profile', 'observed', '--total-per-minute', '6000']);
    expect(o).toMatchObject({ profile: 'observed', totalPerMinute: 6000 });
    expect(sandboxBudgets(o)).toEqual({ post: { limit: 100, windowMs: 1000 }, total: { limit: 100, windowMs: 1000 } });
    expect(sandboxBudgets(o, 0.4).total).toEqual({ limit: 100, windowMs: 1000 });
    expect(workerEnv(o, chaosSecrets(), where).INVENTORY_REQUESTS_PER_MINUTE).toBe('6000');
  });

  it('refuse a profile the sandbox does not have', () => {
    expect(() => parseChaosArgs(['--profile', 'strict'])).toThrow(/--profile/);
  });
});

describe('bench options', () => {
  it('take --profile, the default otherwise, and refuse another name', () => {
    expect(parseBenchArgs([]).profile).toBe(sandboxDefaults.profile);
    expect(parseBenchArgs(['--profile', 'observed']).profile).toBe('observed');
    expect(() => parseBenchArgs(['--profile', 'strict'])).toThrow('unknown sandbox profile "strict": use observed or spec');
  });
});
