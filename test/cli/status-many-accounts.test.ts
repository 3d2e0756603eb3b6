import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountPrefix } from '../../config/accounts.js';
import { CALL_FAILED } from '../../src/queue/hold/call-hold-scripts.js';
import { recordServiceDown } from '../../src/queue/hold/outage-state.js';
import { recordRefusal } from '../../src/queue/hold/refusal-state.js';
import { redisKeys } from '../../src/redis/connection.js';
import { runScript } from '../../src/redis/scripts.js';
import { orderRecord } from '../helpers/order-records.js';
import { connect, deletePrefix, redisUrl, uniquePrefix } from '../helpers/redis.js';
import { baseEnv, runCli, spawnCli } from './run-cli.js';
import { eventually } from './worker-process.js';
import { seedJobs } from './seed-jobs.js';

/**
 * Issue 56, item 5: `status` over 200 accounts, six of which need a person, each for another reason, and one of the
 * fine ones with work waiting. The summary counts them, lists only the six, most pressing first, each with its
 * command; `--all`, `--match`, `--page`/`--limit` and `--json` (the array as before, `--summary` the counts) each show
 * what they say; `--account` shows one account as status always did.
 */
describe('status over many accounts', () => {
  let redis: Redis;
  let base: string;
  let env: Record<string, string>;
  const names = Array.from({ length: 200 }, (_, i) => `acct-${String(i + 1).padStart(3, '0')}`);
  /**
   * The six, most pressing first (the order of the dashboard's all-accounts page too): a paused stream, a failed job,
   * the service down, a held call, a failing pull, a feed behind.
   */
  const needing = ['acct-050', 'acct-100', 'acct-007', 'acct-150', 'acct-120', 'acct-180'];
  const prefix = (name: string) => accountPrefix(base, name);
  const keys = (name: string) => redisKeys(prefix(name));

  beforeAll(async () => {
    redis = connect();
    base = uniquePrefix('many');
    const now = Date.now();
    await recordServiceDown(redis, keys('acct-007'), { threshold: 1, reason: '[TRANSIENT] 503 from the service', firstProbeMs: 60_000 });
    await recordRefusal(redis, keys('acct-050'), 'orders', { threshold: 1, code: 'UNAUTHORIZED', reason: 'HTTP 401', jobId: 'orders-X-1' });
    // Three service-down answers of shipment creates in a row hold the call.
    for (let i = 0; i < 3; i++)
      await runScript(redis, CALL_FAILED, [
        1,
        keys('acct-150').callHolds(),
        'shipment-create',
        now,
        3,
        '[TRANSIENT] 503',
        'TRANSIENT',
        2000,
        30_000,
        '',
      ]);
    await seedJobs(redis, prefix('acct-100'));
    await redis.hset(keys('acct-120').feedState('orders'), {
      lastPollAt: new Date(now).toISOString(),
      lastError: 'HTTP 500 from the feed',
    });
    const twoHoursAgo = new Date(now - 2 * 3600_000).toISOString();
    await redis.hset(keys('acct-180').feedState('orders'), { lastPollAt: new Date(now).toISOString(), caughtUpAt: twoHoursAgo });
    // A fine account with work waiting, and a fine one that caught up a minute ago (not behind).
    const orders = new Queue('orders', { connection: redis, prefix: prefix('acct-003') });
    await orders.add('orders', { record: orderRecord('WEB-9'), source: 'feed' }, { jobId: 'orders-WEB-9-0123456789ab' });
    await orders.close();
    await redis.hset(keys('acct-181').feedState('orders'), {
      lastPollAt: new Date(now).toISOString(),
      caughtUpAt: new Date(now - 60_000).toISOString(),
    });
    const accounts = Object.fromEntries(
      names.map((n) => [
        n,
        {
          INVENTORY_ACCOUNT: n,
          ...(n === 'acct-180' || n === 'acct-181' ? { UPSTREAM_URL: 'http://127.0.0.1:9/feed' } : {}),
        },
      ]),
    );
    const file = join(mkdtempSync(join(tmpdir(), 'isync-many-')), 'accounts.json');
    writeFileSync(file, JSON.stringify({ accounts }));
    env = {
      ...baseEnv(),
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: base,
      ACCOUNTS_FILE: file,
      INVENTORY_BASE_URL: 'http://127.0.0.1:9',
      INVENTORY_API_KEY: 'k',
      INVENTORY_API_SECRET: 's',
    };
  }, 60_000);
  afterAll(async () => {
    for (const n of [...needing, 'acct-003', 'acct-181']) await deletePrefix(redis, prefix(n));
    redis.disconnect();
  });

  /** The accounts a summary lists, in its order. */
  const listed = (stdout: string) => [...stdout.matchAll(/^ {2}(acct-\d+): /gm)].map((m) => m[1]);

  it('counts every account by its state, then lists only those that need a person, most pressing first', async () => {
    const r = await runCli(['status'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Status of 200 accounts of ACCOUNTS_FILE at /);
    expect(r.stdout).toContain(
      '200 accounts: 6 need a person (1 with a stream paused, 1 with failed jobs, 1 with the service down, 1 with a call held, ' +
        '1 with a pull failing, 1 with a feed behind); 194 fine (1 working, 193 idle)',
    );
    expect(listed(r.stdout)).toEqual(needing);
    expect(r.stdout).toMatch(/acct-007: service down since .*: \[TRANSIENT\] 503 from the service/);
    expect(r.stdout).toMatch(/acct-050: paused: orders since .* \(HTTP 401\)/);
    expect(r.stdout).toContain('acct-150: calls held: shipment create');
    expect(r.stdout).toMatch(/acct-100: failed: orders 1; 1 job waiting/);
    expect(r.stdout).toContain('acct-120: pull failing: orders (HTTP 500 from the feed)');
    expect(r.stdout).toContain('acct-180: behind: orders 2.0 h');
    for (const n of needing) expect(r.stdout).toContain(`    more: inventory-sync --account ${n} status\n`);
    // Fine accounts, even one with work waiting or a feed a minute behind, are counted, not listed.
    for (const n of ['acct-001', 'acct-003', 'acct-181', 'acct-200']) expect(r.stdout).not.toContain(n);
    expect(r.stdout.split('\n').length).toBeLessThan(25);
  });

  it('--page and --limit page the accounts that need a person; --match narrows the accounts by name', async () => {
    const page = await runCli(['status', '--page', '2', '--limit', '2'], env);
    expect(listed(page.stdout)).toEqual(['acct-007', 'acct-150']);
    expect(page.stdout).toContain('(3-4 of 6)');
    expect(page.stdout).toContain('Next page: inventory-sync status --page 3 --limit 2');
    const last = await runCli(['status', '--page', '3', '--limit', '2'], env);
    expect(listed(last.stdout)).toEqual(['acct-120', 'acct-180']);
    expect(last.stdout).not.toContain('Next page');
    const match = await runCli(['status', '--match', 'ACCT-1'], env);
    expect(match.stdout).toMatch(/^Status of 100 accounts of ACCOUNTS_FILE whose name holds "ACCT-1" \(of 200\)/);
    expect(match.stdout).toContain('100 accounts: 4 need a person');
    expect(listed(match.stdout)).toEqual(['acct-100', 'acct-150', 'acct-120', 'acct-180']);
    const bad = await runCli(['status', '--page', '0'], env);
    expect(bad.code).toBe(2);
  });

  it('--all: every account in full, a heading each, as status printed before; with --match and --page too', async () => {
    const all = await runCli(['status', '--all'], env);
    expect(all.code).toBe(0);
    expect([...all.stdout.matchAll(/^=== account (acct-\d+) \(prefix /gm)].map((m) => m[1])).toEqual(names);
    const some = await runCli(['status', '--all', '--match', 'acct-05', '--limit', '3', '--page', '2'], env);
    expect([...some.stdout.matchAll(/^=== account (acct-\d+) /gm)].map((m) => m[1])).toEqual(['acct-053', 'acct-054', 'acct-055']);
    const one = await runCli(['status', '--all', '--match', 'acct-050'], env);
    expect(one.stdout).toMatch(/^=== account acct-050 \(prefix .*\) ===\nStatus of prefix /);
  }, 60_000);

  it('--json: the array of every account as before; --summary: the counts and the accounts that need a person', async () => {
    const arr = JSON.parse((await runCli(['status', '--json'], env)).stdout) as Array<Record<string, unknown>>;
    expect(arr.map((a) => a.account)).toEqual(names);
    expect(Object.keys(arr[0]!)[0]).toBe('account');
    expect(arr.find((a) => a.account === 'acct-007')!.outage).toMatchObject({ open: true });
    const matched = JSON.parse((await runCli(['status', '--json', '--match', 'acct-007'], env)).stdout) as unknown[];
    expect(matched).toEqual([expect.objectContaining({ account: 'acct-007' })]);
    const sum = JSON.parse((await runCli(['status', '--json', '--summary'], env)).stdout) as {
      counts: { accounts: number; fine: number; needPerson: number; by: Record<string, number> };
      needing: Array<{ account: string; needs: Array<{ kind: string }>; command: string }>;
    };
    expect(sum.counts).toMatchObject({
      accounts: 200,
      fine: 194,
      needPerson: 6,
      by: { outage: 1, failed: 1, behind: 1, working: 1, idle: 193 },
    });
    expect(sum.needing.map((a) => a.account)).toEqual(needing);
    expect(sum.needing[0]!.needs[0]!.kind).toBe('paused');
    expect(sum.needing[0]!.command).toBe('inventory-sync --account acct-050 status');
  }, 60_000);

  it('a line that names the accounts names a few and counts the rest: dashboard at start, --account wrong or left out', async () => {
    const wrong = await runCli(['--account', 'nope', 'status'], env);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('names acct-001, acct-002, acct-003, acct-004, acct-005 and 195 more');
    const neither = await runCli(['resume'], env);
    expect(neither.stderr).toContain('names 200 accounts (acct-001, acct-002, acct-003, acct-004, acct-005 and 195 more)');
    const child = spawnCli(['dashboard', '--port', '0', '--no-auth'], env);
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await eventually(async () => out.includes('Stop with Ctrl-C'), 30_000, 'the dashboard to start');
    child.kill('SIGTERM');
    await exited;
    expect(out).toMatch(/^Accounts: {2}200 \(acct-001, acct-002, acct-003, acct-004, acct-005 and 195 more\), each at http/m);
    expect(out).not.toContain('acct-006');
  }, 60_000);

  it('--account NAME: that account alone, as status always printed it', async () => {
    const r = await runCli(['--account', 'acct-100', 'status'], env);
    expect(r.stdout).toMatch(/^Status of prefix \{.*-acct-100\} at /);
    expect(r.stdout).not.toContain('=== account');
    expect(r.stdout).toContain('Failed jobs by reason:');
  });
});
