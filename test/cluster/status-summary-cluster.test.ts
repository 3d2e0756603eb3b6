import { mkdtempSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { slotOwner } from '../kit/local-cluster.js';
import { recordServiceDown } from '../../src/queue/hold/outage-state.js';
import { createRedis, deleteKeysUnder, redisKeys, type RedisConnection } from '../../src/redis/connection.js';
import { baseEnv, runCli } from '../cli/run-cli.js';
import { redisEnv, redisTarget } from '../helpers/redis.js';

const cluster = () => inject('redisCluster')!;

/**
 * `status` over many accounts on a Redis Cluster of three masters: the summary reads each account in a pipeline of its
 * own (its keys share its hash tag's slot), and the accounts lie on every master.
 */
describe('status summary on a Redis Cluster', () => {
  let redis: RedisConnection;
  let base: string;
  let env: Record<string, string>;
  /** Seven accounts; one on each master has the service down. */
  const names: string[] = [];
  const down: string[] = [];
  const prefix = (name: string) => `{${base}-${name}}`;

  beforeAll(async () => {
    redis = createRedis(redisTarget());
    base = `clst-${randomBytes(3).toString('hex')}`;
    const masters = new Set<number>();
    const fine: string[] = [];
    for (let i = 0; (down.length < 3 || fine.length < 4) && i < 500; i++) {
      const name = `st-${i}`;
      const owner = await slotOwner(cluster().seed, prefix(name), cluster().password);
      if (!masters.has(owner.port)) {
        masters.add(owner.port);
        down.push(name);
      } else if (fine.length < 4) fine.push(name);
    }
    expect(masters.size).toBe(3);
    names.push(...down, ...fine);
    for (const name of down)
      await recordServiceDown(redis, redisKeys(prefix(name)), {
        threshold: 1,
        reason: `[TRANSIENT] 503 for ${name}`,
        firstProbeMs: 60_000,
      });
    const file = join(mkdtempSync(join(tmpdir(), 'isync-clst-')), 'accounts.json');
    writeFileSync(file, JSON.stringify({ accounts: Object.fromEntries(names.map((n) => [n, { INVENTORY_ACCOUNT: n }])) }));
    env = { ...baseEnv(), ...redisEnv(), QUEUE_PREFIX: base, ACCOUNTS_FILE: file };
  });
  afterAll(async () => {
    for (const name of names) await deleteKeysUnder(redis, prefix(name));
    redis.disconnect();
  });

  it('counts every account and lists those with the service down, from every master', async () => {
    const r = await runCli(['status'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`7 accounts: 3 need a person (3 with the service down); 4 fine (0 working, 4 idle)`);
    for (const name of down) expect(r.stdout).toContain(`  ${name}: service down since `);
    const json = JSON.parse((await runCli(['status', '--json', '--summary'], env)).stdout) as { needing: Array<{ account: string }> };
    expect(json.needing.map((a) => a.account).sort()).toEqual([...down].sort());
  });
});
