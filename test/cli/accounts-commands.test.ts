import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { programKinds } from '../../jobs/kinds.js';
import { buildProgram } from '../../src/cli/program.js';
import { indexJobIds } from '../../src/queue/job-index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { connect, deletePrefix, redisUrl, uniquePrefix } from '../helpers/redis.js';
import { orderRecord } from '../helpers/order-records.js';
import { baseEnv, runCli } from './run-cli.js';
import { seedJobs, seedWaitingBatch, type Seeded } from './seed-jobs.js';
import { SECRETS } from './stack.js';

/**
 * The commands over the accounts of ACCOUNTS_FILE: two accounts, acme and beta, each its own prefix in the one Redis
 * and its own sandbox service. status, jobs list, audit and reconcile cover both (a heading or an object each) or
 * --account's; the commands of one account act on --account's.
 */
describe('commands over several accounts', () => {
  let redis: Redis;
  let base: string;
  let prefixes: { acme: string; beta: string };
  let sandboxes: { acme: Sandbox; beta: Sandbox };
  let seeded: Seeded;
  let env: Record<string, string>;
  /** The same deployment with a file of one account (acme). */
  let oneEnv: Record<string, string>;

  beforeAll(async () => {
    redis = connect();
    base = uniquePrefix('accounts');
    prefixes = { acme: `{${base}-acme}`, beta: `{${base}-beta}` };
    const sandbox = () => startSandbox({ port: 0, data: 'demo', key: SECRETS.key, secret: SECRETS.secret });
    sandboxes = { acme: await sandbox(), beta: await sandbox() };
    // Both accounts: WEB-1 completed, WEB-2 failed; beta has an import batch waiting too, acme an order WEB-9 waiting.
    seeded = await seedJobs(redis, prefixes.acme);
    await seedJobs(redis, prefixes.beta);
    await seedWaitingBatch(redis, prefixes.beta);
    const orders = new Queue('orders', { connection: redis, prefix: prefixes.acme });
    await orders.add('orders', { record: orderRecord('WEB-9'), source: 'feed' }, { jobId: 'orders-WEB-9-0123456789ab' });
    await orders.close();
    await indexJobIds(redis, prefixes.acme, ['orders-WEB-9-0123456789ab']);
    const dir = mkdtempSync(join(tmpdir(), 'isync-accounts-cli-'));
    const account = (s: Sandbox) => ({ INVENTORY_BASE_URL: s.url, INVENTORY_ACCOUNT: s.account });
    const file = join(dir, 'accounts.json');
    writeFileSync(file, JSON.stringify({ accounts: { acme: account(sandboxes.acme), beta: account(sandboxes.beta) } }));
    const oneFile = join(dir, 'one.yaml');
    writeFileSync(
      oneFile,
      `accounts:\n  acme:\n    INVENTORY_BASE_URL: ${sandboxes.acme.url}\n    INVENTORY_ACCOUNT: ${sandboxes.acme.account}\n`,
    );
    const shared = {
      ...baseEnv(),
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: base,
      INVENTORY_API_KEY: SECRETS.key,
      INVENTORY_API_SECRET: SECRETS.secret,
      INVENTORY_POST_PER_MINUTE: '6000',
      INVENTORY_GET_PER_MINUTE: '6000',
      INVENTORY_COLLECTION_PER_HOUR: '3000',
      CATALOG_REFRESH_SECONDS: '0',
    };
    env = { ...shared, ACCOUNTS_FILE: file };
    oneEnv = { ...shared, ACCOUNTS_FILE: oneFile };
  }, 60_000);
  afterAll(async () => {
    await deletePrefix(redis, prefixes.acme);
    await deletePrefix(redis, prefixes.beta);
    redis.disconnect();
    await sandboxes.acme.close();
    await sandboxes.beta.close().catch(() => undefined);
  });

  /** The text of each account's part, by name, in the order printed. */
  function parts(stdout: string): Array<[string, string]> {
    return stdout
      .split(/^(?==== account )/m)
      .filter(Boolean)
      .map((part) => {
        const m = /^=== account (\S+) \(prefix (\S+)\) ===\n/.exec(part);
        expect(m, part.slice(0, 200)).not.toBeNull();
        expect(m![2]).toBe(prefixes[m![1] as 'acme' | 'beta']);
        return [m![1]!, part.slice(m![0].length)];
      });
  }

  describe('status', () => {
    it('covers every account, a heading each, each its own counts', async () => {
      const r = await runCli(['status'], env);
      expect(r.code, r.stderr).toBe(0);
      const [[a, acme], [b, beta]] = parts(r.stdout) as [[string, string], [string, string]];
      expect([a, b]).toEqual(['acme', 'beta']);
      expect(acme).toMatch(new RegExp(`^Status of prefix ${escape(prefixes.acme)} at `));
      expect(acme).toMatch(/orders\s+1\s+0\s+0\s+1\s+1\s/);
      expect(beta).toMatch(new RegExp(`^Status of prefix ${escape(prefixes.beta)} at `));
      expect(beta).toMatch(/orders\s+0\s+0\s+0\s+1\s+1\s/);
      // Only beta has an import batch waiting.
      expect(beta).toMatch(/Import batches by state/);
      expect(acme).not.toMatch(/Import batches by state/);
    });

    it('--json: an object per account, with `account`', async () => {
      const r = await runCli(['status', '--json'], env);
      expect(r.code, r.stderr).toBe(0);
      const all = JSON.parse(r.stdout) as Array<{
        account: string;
        prefix: string;
        streams: Array<{ stream: string; counts: { waiting: number } }>;
      }>;
      expect(all.map((s) => [s.account, s.prefix])).toEqual([
        ['acme', prefixes.acme],
        ['beta', prefixes.beta],
      ]);
      expect(all[0]!.streams.find((s) => s.stream === 'orders')!.counts.waiting).toBe(1);
      expect(all[1]!.streams.find((s) => s.stream === 'orders')!.counts.waiting).toBe(0);
    });

    it('--account NAME (before or after the command): that account alone, as status always printed it', async () => {
      for (const args of [
        ['--account', 'beta', 'status'],
        ['status', '--account', 'beta'],
      ]) {
        const r = await runCli(args, env);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toMatch(new RegExp(`^Status of prefix ${escape(prefixes.beta)} at `));
        expect(r.stdout).not.toContain('=== account');
      }
      const json = await runCli(['status', '--json', '--account', 'acme'], env);
      expect(JSON.parse(json.stdout)).toMatchObject({ prefix: prefixes.acme });
      const none = await runCli(['status', '--account', 'gamma'], env);
      expect(none.code).toBe(2);
      expect(none.stderr).toContain(`--account: no account "gamma": ACCOUNTS_FILE (${env.ACCOUNTS_FILE}) names acme, beta`);
    });

    it('with a file of one account: as without the file (no heading, one object)', async () => {
      const r = await runCli(['status'], oneEnv);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Status of prefix ${escape(prefixes.acme)} at `));
      expect(r.stdout).not.toContain('=== account');
      const json = JSON.parse((await runCli(['status', '--json'], oneEnv)).stdout);
      expect(Array.isArray(json)).toBe(false);
      expect(json.account).toBeUndefined();
    });
  });

  describe('jobs list and audit', () => {
    it('jobs list: each account its jobs; --json an object per account with its prefix and jobs; --account one', async () => {
      const r = await runCli(['jobs', 'list', '--state', 'waiting'], env);
      expect(r.code, r.stderr).toBe(0);
      const [[, acme], [, beta]] = parts(r.stdout) as [[string, string], [string, string]];
      expect(acme).toContain('orders-WEB-9-0123456789ab');
      expect(beta).not.toContain('WEB-9');
      expect(beta).toContain(seeded.waitingId);
      const json = JSON.parse((await runCli(['jobs', 'list', '--json', '--state', 'failed'], env)).stdout);
      expect(json).toEqual([
        { account: 'acme', prefix: prefixes.acme, jobs: [expect.objectContaining({ id: seeded.failedId, state: 'failed' })] },
        { account: 'beta', prefix: prefixes.beta, jobs: [expect.objectContaining({ id: seeded.failedId, state: 'failed' })] },
      ]);
      const one = JSON.parse((await runCli(['jobs', 'list', '--json', '--account', 'beta', '--state', 'failed'], env)).stdout);
      expect(one).toEqual({ prefix: prefixes.beta, jobs: [expect.objectContaining({ id: seeded.failedId })] });
    });

    it('audit: a table per account; CSV and NDJSON one table whose rows name their account; --json an object each', async () => {
      const table = await runCli(['audit'], env);
      expect(table.code, table.stderr).toBe(0);
      expect(parts(table.stdout).map(([name, text]) => [name, text.split('\n')[0]])).toEqual([
        ['acme', expect.stringMatching(/^1 write to the service/)],
        ['beta', expect.stringMatching(/^1 write to the service/)],
      ]);
      const csv = (await runCli(['audit', '--format', 'csv'], env)).stdout.trim().split('\r\n');
      expect(csv[0]).toBe('account,at,stream,key,jobId,method,path,status,entityUrl');
      expect(csv.slice(1).map((l) => l.split(',')[0])).toEqual(['acme', 'beta']);
      const ndjson = (await runCli(['audit', '--format', 'ndjson'], env)).stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(ndjson.map((w: { account: string; key: string }) => [w.account, w.key])).toEqual([
        ['acme', 'WEB-1'],
        ['beta', 'WEB-1'],
      ]);
      const json = JSON.parse((await runCli(['audit', '--json'], env)).stdout);
      expect(json).toEqual([
        { account: 'acme', writes: [expect.objectContaining({ key: 'WEB-1', method: 'POST' })] },
        { account: 'beta', writes: [expect.objectContaining({ key: 'WEB-1', method: 'POST' })] },
      ]);
      // One account: the CSV of today, without the column.
      const one = (await runCli(['audit', '--format', 'csv', '--account', 'acme'], env)).stdout.split('\r\n');
      expect(one[0]).toBe('at,stream,key,jobId,method,path,status,entityUrl');
      expect(JSON.parse((await runCli(['audit', '--json', '--account', 'acme'], env)).stdout)).toHaveLength(1);
    });
  });

  describe('the commands of one account', () => {
    it('find acts on --account, and asks for it when there are several', async () => {
      const acme = await runCli(['find', 'WEB-9', '--account', 'acme'], env);
      expect(acme.code, acme.stderr).toBe(0);
      expect(acme.stdout).toContain('WEB-9');
      const beta = await runCli(['--account', 'beta', 'find', 'WEB-9'], env);
      expect(beta.code).toBe(1);
      expect(beta.stderr).toContain(`Nothing known of WEB-9 under prefix ${prefixes.beta}`);
      const neither = await runCli(['find', 'WEB-9'], env);
      expect(neither.code).toBe(2);
      expect(neither.stderr).toContain('names 2 accounts (acme, beta); give --account NAME');
      // A file of one account: that one, without --account.
      expect((await runCli(['find', 'WEB-9'], oneEnv)).code).toBe(0);
    });

    it("jobs show and jobs retry act on --account's jobs alone", async () => {
      const show = await runCli(['jobs', 'show', 'orders-WEB-9-0123456789ab', '--account', 'beta'], env);
      expect(show.code).toBe(1);
      expect(show.stderr).toContain(`No job orders-WEB-9-0123456789ab under prefix ${prefixes.beta}`);
      const retry = await runCli(['jobs', 'retry', seeded.failedId, '--account', 'beta'], env);
      expect(retry.code, retry.stderr).toBe(0);
      const failed = JSON.parse((await runCli(['jobs', 'list', '--json', '--state', 'failed'], env)).stdout);
      expect(failed.map((a: { account: string; jobs: unknown[] }) => [a.account, a.jobs.length])).toEqual([
        ['acme', 1],
        ['beta', 0],
      ]);
    });
  });

  describe('reconcile', () => {
    it("covers every account against its own service; one account's service away is its failure, the other goes on; exit the worst", async () => {
      // Acme's synced order goes (nothing synced, nothing drifts); beta's WEB-1 is synced but not in its service.
      const orders = new Queue('orders', { connection: redis, prefix: prefixes.acme });
      await orders.remove(seeded.completedId);
      await orders.close();
      const r = await runCli(['reconcile', '--stream', 'orders'], env);
      expect(r.code, r.stderr).toBe(1);
      const both = parts(r.stdout);
      expect(both.map(([name]) => name)).toEqual(['acme', 'beta']);
      expect(both[0]![1]).toContain('No drift: the service matches what was synced.');
      expect(both[1]![1]).toMatch(/1 drift:\n.*\norders\s+WEB-1\s+order-missing/);
      const json = JSON.parse((await runCli(['reconcile', '--stream', 'orders', '--json'], env)).stdout);
      expect(json).toEqual([
        expect.objectContaining({ account: 'acme', ok: true }),
        expect.objectContaining({ account: 'beta', ok: false, drifts: [expect.objectContaining({ key: 'WEB-1' })] }),
      ]);
      expect((await runCli(['reconcile', '--stream', 'orders', '--account', 'acme'], env)).code).toBe(0);

      await sandboxes.beta.close();
      const away = await runCli(['reconcile', '--stream', 'orders'], env);
      expect(away.code).toBe(3);
      const [[, acme], [, beta]] = parts(away.stdout) as [[string, string], [string, string]];
      expect(acme).toContain('No drift');
      expect(beta).toMatch(/could not be reached|unreachable|ECONNREFUSED/i);
      expect(away.stderr).toMatch(/^account beta: /m);
      const awayJson = await runCli(['reconcile', '--stream', 'orders', '--json'], env);
      expect(awayJson.code).toBe(3);
      expect(JSON.parse(awayJson.stdout)).toEqual([
        expect.objectContaining({ account: 'acme', ok: true }),
        { account: 'beta', error: [expect.any(String), expect.any(String)] },
      ]);
      // --repair writes: to one account, named.
      const repair = await runCli(['reconcile', '--repair', '--dry-run'], env);
      expect(repair.code).toBe(2);
      expect(repair.stderr).toContain('give --account NAME');
    });
  });
});

describe("the program's --account beside a command's own", () => {
  it('gives `sandbox --account A` to the sandbox (its account path), and --account to every other command', async () => {
    const quiet = new PassThrough();
    const io = { env: {}, stdout: quiet, stderr: quiet, stdin: new PassThrough(), stop: new AbortController().signal };
    const seen: Array<[string, unknown]> = [];
    const program = buildProgram(io, () => undefined, programKinds);
    const sandbox = program.commands.find((c) => c.name() === 'sandbox')!;
    sandbox.action((o: { account?: string }) => void seen.push(['sandbox', o.account]));
    await program.parseAsync(['sandbox', '--account', 'shop-7'], { from: 'user' });
    await program.parseAsync(['--account', 'shop-8', 'sandbox'], { from: 'user' });
    expect(seen).toEqual([
      ['sandbox', 'shop-7'],
      ['sandbox', 'shop-8'],
    ]);
  });
});

function escape(s: string): string {
  return s.replace(/[-.*+?^${}()|[\]\\]/g, '\\$&');
}
