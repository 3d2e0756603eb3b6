import { mkdtempSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { slotOwner } from '../kit/local-cluster.js';
import { createRedis, deleteKeysUnder, type RedisConnection } from '../../src/redis/connection.js';
import { countKeysUnder } from '../../src/redis/key-scan.js';
import { baseEnv, runCli } from '../cli/run-cli.js';
import { redisEnv, redisTarget } from '../helpers/redis.js';

const cluster = () => inject('redisCluster')!;

/**
 * `accounts list` and `accounts purge` on a Redis Cluster of three masters: each account's keys share its hash tag's
 * slot, and the accounts lie on different masters, so SCAN and UNLINK must go to every master.
 */
describe('accounts on a Redis Cluster', () => {
  let redis: RedisConnection;
  let base: string;
  /** Removed accounts, one on each master. */
  const removed = new Map<string, number>();
  let env: Record<string, string>;
  const prefix = (name: string) => `{${base}-${name}}`;

  beforeAll(async () => {
    redis = createRedis(redisTarget());
    base = `clacc-${randomBytes(3).toString('hex')}`;
    const masters = new Set<number>();
    for (let i = 0; masters.size < 3 && i < 200; i++) {
      const name = `gone-${i}`;
      const owner = await slotOwner(cluster().seed, prefix(name), cluster().password);
      if (masters.has(owner.port)) continue;
      masters.add(owner.port);
      removed.set(name, 20 + i);
    }
    expect(masters.size).toBe(3);
    for (const [name, n] of removed) for (let k = 0; k < n; k++) await redis.set(`${prefix(name)}:lock:orders:K-${k}`, '1');
    await redis.set(`${prefix('acme')}:cursor:orders`, 'c1');
    const dir = mkdtempSync(join(tmpdir(), 'isync-clacc-'));
    const file = join(dir, 'accounts.json');
    writeFileSync(file, JSON.stringify({ accounts: { acme: { INVENTORY_ACCOUNT: 'acme' } } }));
    env = { ...baseEnv(), ...redisEnv(), QUEUE_PREFIX: base, ACCOUNTS_FILE: file };
  });
  afterAll(async () => {
    for (const name of [...removed.keys(), 'acme', 'beta']) await deleteKeysUnder(redis, prefix(name));
    redis.disconnect();
  });

  it('accounts list finds the removed accounts on every master', async () => {
    const r = await runCli(['accounts', 'list', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const list = JSON.parse(r.stdout);
    expect(list.accounts).toEqual([expect.objectContaining({ account: 'acme', prefix: prefix('acme') })]);
    expect(list.removed).toEqual(
      [...removed.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([account, keys]) => ({ account, prefix: prefix(account), keys })),
    );
  });

  it('status covers every account over one cluster connection, each its own prefix', async () => {
    const two = join(mkdtempSync(join(tmpdir(), 'isync-clacc-')), 'two.json');
    writeFileSync(two, JSON.stringify({ accounts: { acme: {}, beta: {} } }));
    const r = await runCli(['status', '--json'], { ...env, ACCOUNTS_FILE: two });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((s: { account: string; prefix: string }) => [s.account, s.prefix])).toEqual([
      ['acme', prefix('acme')],
      ['beta', prefix('beta')],
    ]);
  });

  it('accounts purge deletes every key of an account, wherever its master is, and no other', async () => {
    for (const [name, n] of removed) {
      const r = await runCli(['accounts', 'purge', name, '--yes'], env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`Deleted ${n} key(s) under prefix ${prefix(name)} (account ${name}).\n`);
      expect(await countKeysUnder(redis, prefix(name))).toBe(0);
    }
    expect(await redis.get(`${prefix('acme')}:cursor:orders`)).toBe('c1');
  });
});
