import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordRefusal } from '../../src/queue/hold/refusal-state.js';
import { redisKeys } from '../../src/redis/connection.js';
import { countKeysUnder } from '../../src/redis/key-scan.js';
import { startWorkerPresence } from '../../src/ops/worker-presence.js';
import { connect, deletePrefix, redisUrl, uniquePrefix } from '../helpers/redis.js';
import { baseEnv, runCli } from './run-cli.js';
import { seedJobs, seedWaitingBatch } from './seed-jobs.js';

/**
 * `accounts list` and `accounts purge` against a real Redis: two accounts in the file (acme with jobs, beta with a
 * paused stream), and the keys of accounts the file no longer names (old: a queue's; bulk: thousands of keys).
 */
describe('accounts list and purge', () => {
  let redis: Redis;
  let base: string;
  const prefix = (name: string) => `{${base}-${name}}`;
  let env: Record<string, string>;
  let oldKeys: number;

  beforeAll(async () => {
    redis = connect();
    base = uniquePrefix('acclist');
    await seedJobs(redis, prefix('acme'));
    await recordRefusal(redis, redisKeys(prefix('beta')), 'orders', {
      threshold: 1,
      code: 'UNAUTHORIZED',
      reason: 'the service refused the credentials (401)',
      jobId: 'orders-X-1',
    });
    // Accounts gone from the file, their data kept: one with a queue's keys, one with more keys than a SCAN step.
    await seedWaitingBatch(redis, prefix('old'));
    await redis.set(`${prefix('old')}:cursor:orders`, 'c9');
    oldKeys = await countKeysUnder(redis, prefix('old'));
    const pipe = redis.pipeline();
    for (let i = 0; i < 2500; i++) pipe.set(`${prefix('bulk')}:lock:orders:K-${i}`, '1');
    await pipe.exec();
    // Not an account's: the default account's keys, and another deployment's base.
    await redis.set(`${base}:cursor:orders`, 'c1');
    await redis.set(`{${base}x-other}:cursor:orders`, 'c1');
    const dir = mkdtempSync(join(tmpdir(), 'isync-acclist-'));
    const file = join(dir, 'accounts.yaml');
    writeFileSync(
      file,
      [
        'accounts:',
        '  acme:',
        '    INVENTORY_BASE_URL: https://acme.example.com',
        '    INVENTORY_ACCOUNT: acme-store',
        '  beta:',
        '    INVENTORY_ACCOUNT: beta-store',
        '',
      ].join('\n'),
    );
    env = {
      ...baseEnv(),
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: base,
      ACCOUNTS_FILE: file,
      INVENTORY_BASE_URL: 'https://shared.example.com',
      INVENTORY_API_KEY: 'key-shared-1',
      INVENTORY_API_SECRET: 'secret-shared-2',
    };
  });
  afterAll(async () => {
    for (const name of ['acme', 'beta', 'old', 'bulk', 'gone']) await deletePrefix(redis, prefix(name));
    await redis.del(`${base}:cursor:orders`, `{${base}x-other}:cursor:orders`);
    redis.disconnect();
  });

  it('lists each account: prefix, service, jobs to run and failed per stream, held streams; and the removed ones', async () => {
    const r = await runCli(['accounts', 'list'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`2 accounts of ACCOUNTS_FILE (${env.ACCOUNTS_FILE}):`);
    const acme = new RegExp(
      `^acme\\s+${escape(prefix('acme'))}\\s+acme-store at https://acme\\.example\\.com\\s+orders\\s+0\\s+1\\s+-$`,
      'm',
    );
    expect(r.stdout).toMatch(acme);
    expect(r.stdout).toMatch(/^\s+stock-counts\s+1\s+0\s+-$/m);
    expect(r.stdout).toMatch(
      new RegExp(
        `^beta\\s+${escape(prefix('beta'))}\\s+beta-store at https://shared\\.example\\.com\\s+orders\\s+0\\s+0\\s+paused \\(refusals\\) since .* UTC: \\[UNAUTHORIZED\\]`,
        'm',
      ),
    );
    expect(r.stdout).toContain('beta: orders is paused; fix the cause, then: inventory-sync --account beta resume --stream orders');
    const removed = r.stdout.slice(r.stdout.indexOf('In Redis but no longer in the file'));
    expect(removed).toMatch(/^In Redis but no longer in the file \(removed: data kept; `accounts purge NAME` deletes it\):\n/);
    expect(removed).toMatch(new RegExp(`^bulk\\s+${escape(prefix('bulk'))}\\s+2500$`, 'm'));
    expect(removed).toMatch(new RegExp(`^old\\s+${escape(prefix('old'))}\\s+${oldKeys}$`, 'm'));
    expect(removed).not.toContain('acme');
    expect(removed).not.toContain('other');
    // Secrets of the environment are no part of it.
    expect(r.stdout).not.toContain('key-shared-1');
  });

  it('--json: the file, each account with its streams, the removed accounts', async () => {
    const r = await runCli(['accounts', 'list', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const list = JSON.parse(r.stdout);
    expect(list.file).toBe(env.ACCOUNTS_FILE);
    expect(list.accounts.map((a: { account: string; prefix: string }) => [a.account, a.prefix])).toEqual([
      ['acme', prefix('acme')],
      ['beta', prefix('beta')],
    ]);
    expect(list.accounts[0].service).toEqual({ account: 'acme-store', baseUrl: 'https://acme.example.com' });
    expect(list.accounts[0].streams.find((s: { stream: string }) => s.stream === 'orders')).toEqual({
      stream: 'orders',
      waiting: 0,
      failed: 1,
      held: null,
    });
    expect(list.accounts[1].streams.find((s: { stream: string }) => s.stream === 'orders').held).toMatchObject({
      cause: 'refusals',
      reason: expect.stringContaining('UNAUTHORIZED'),
    });
    expect(list.removed).toEqual([
      { account: 'bulk', prefix: prefix('bulk'), keys: 2500 },
      { account: 'old', prefix: prefix('old'), keys: oldKeys },
    ]);
  });

  it('without ACCOUNTS_FILE: the one account `default` under QUEUE_PREFIX; every account in Redis is a removed one', async () => {
    const { ACCOUNTS_FILE: _file, ...noFile } = env;
    const r = await runCli(['accounts', 'list', '--json'], noFile);
    expect(r.code, r.stderr).toBe(0);
    const list = JSON.parse(r.stdout);
    expect(list.file).toBeNull();
    expect(list.accounts).toEqual([expect.objectContaining({ account: 'default', prefix: base })]);
    expect(list.removed.map((a: { account: string }) => a.account)).toEqual(['acme', 'beta', 'bulk', 'old']);
    const text = await runCli(['accounts', 'list'], noFile);
    expect(text.stdout).toContain('One account, `default`, from the environment (no ACCOUNTS_FILE):');
    expect(text.stdout).toContain('In Redis but in no ACCOUNTS_FILE (removed: data kept; `accounts purge NAME` deletes it):');
  });

  describe('purge', () => {
    it('refuses an account the file names, `default`, and a name no account can have', async () => {
      const named = await runCli(['accounts', 'purge', 'acme', '--yes'], env);
      expect(named.code).toBe(2);
      expect(named.stderr).toContain(`ACCOUNTS_FILE (${env.ACCOUNTS_FILE}) still names acme: remove it from the file first`);
      const dflt = await runCli(['accounts', 'purge', 'default', '--yes'], env);
      expect(dflt.code).toBe(2);
      expect(dflt.stderr).toContain('`default` is the environment');
      expect((await runCli(['accounts', 'purge', 'No_Such', '--yes'], env)).code).toBe(2);
      expect(await countKeysUnder(redis, prefix('acme'))).toBeGreaterThan(0);
      expect(await redis.get(`${base}:cursor:orders`)).toBe('c1');
    });

    it('without --yes says what it would delete, deletes nothing, and exits 2', async () => {
      const r = await runCli(['accounts', 'purge', 'old'], env);
      expect(r.code).toBe(2);
      expect(r.stdout).toContain(`Would delete ${oldKeys} key(s) under prefix ${prefix('old')} (account old)`);
      expect(r.stdout).toContain('inventory-sync accounts purge old --yes');
      expect(await countKeysUnder(redis, prefix('old'))).toBe(oldKeys);
    });

    it('with --yes deletes every key under the prefix, in batches, and nothing else', async () => {
      const bulk = await runCli(['accounts', 'purge', 'bulk', '--yes'], env);
      expect(bulk.code, bulk.stderr).toBe(0);
      expect(bulk.stdout).toBe(`Deleted 2500 key(s) under prefix ${prefix('bulk')} (account bulk).\n`);
      expect(await countKeysUnder(redis, prefix('bulk'))).toBe(0);
      const old = await runCli(['accounts', 'purge', 'old', '--yes'], env);
      expect(old.code, old.stderr).toBe(0);
      expect(old.stdout).toContain(`Deleted ${oldKeys} key(s)`);
      expect(await countKeysUnder(redis, prefix('old'))).toBe(0);
      // The others are whole.
      expect(await countKeysUnder(redis, prefix('acme'))).toBeGreaterThan(0);
      expect(await redis.get(`{${base}x-other}:cursor:orders`)).toBe('c1');
      expect(JSON.parse((await runCli(['accounts', 'list', '--json'], env)).stdout).removed).toEqual([]);
      // Nothing left: said, exit 1.
      const again = await runCli(['accounts', 'purge', 'old', '--yes'], env);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain(`No keys under prefix ${prefix('old')} (account old): nothing to delete`);
    });

    it('refuses while a worker still runs the account', async () => {
      await redis.set(`${prefix('gone')}:cursor:orders`, 'c2');
      const presence = startWorkerPresence(redis, redisKeys(prefix('gone')), { pulls: true, ingest: null });
      try {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const r = await runCli(['accounts', 'purge', 'gone', '--yes'], env);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(`1 worker still runs account gone (prefix ${prefix('gone')})`);
        expect(await redis.get(`${prefix('gone')}:cursor:orders`)).toBe('c2');
      } finally {
        await presence.stop();
      }
      expect((await runCli(['accounts', 'purge', 'gone', '--yes'], env)).code).toBe(0);
    });
  });
});

function escape(s: string): string {
  return s.replace(/[-.*+?^${}()|[\]\\]/g, '\\$&');
}
