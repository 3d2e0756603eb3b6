/**
 * `status` over many accounts (issue 56, item 5): N accounts in one ACCOUNTS_FILE, each with the keys an idle account
 * that pulls has (its feeds' state, caught up a minute ago), one in a hundred needing a person (the service down, a
 * stream paused, a pull failing: in turn); the real command (src/cli/program.ts's runCli, in this process, as the
 * entry point runs it) timed end to end: the file read, the reads, the text. The summary (the default over many
 * accounts) against `status --all` (every account's whole status, what `status` printed before).
 *
 * `npx tsx bench/accounts-status.ts --accounts 1000,10000 [--all-up-to 1000]`
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { Readable } from 'node:stream';
import { accountPrefix } from '../config/accounts.js';
import { programKinds, STREAMS } from '../jobs/kinds.js';
import { runCli } from '../src/cli/program.js';
import { createRedis, redisKeys } from '../src/redis/connection.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface StatusRun {
  accounts: number;
  command: string;
  seconds: number;
  /** CPU of this process (user + system) while the command ran, in seconds: what the load of others does not move. */
  cpuSeconds: number;
  lines: number;
  bytes: number;
  code: number;
}

/** Runs one command line in this process; its time, its output's lines and bytes. */
async function timed(args: string[], env: Record<string, string>, accounts: number): Promise<StatusRun> {
  let out = '';
  const stdout = new Writable({
    write(chunk: Buffer | string, _e, done) {
      out += chunk.toString();
      done();
    },
  });
  const stderr = new Writable({ write: (_c, _e, done) => done() });
  const started = performance.now();
  const cpu = process.cpuUsage();
  const code = await runCli(args, { env, stdout, stderr, stdin: Readable.from([]), stop: new AbortController().signal }, programKinds);
  const seconds = Math.round((performance.now() - started) / 10) / 100;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = Math.round((used.user + used.system) / 10_000) / 100;
  return {
    accounts,
    command: `inventory-sync ${args.join(' ')}`,
    seconds,
    cpuSeconds,
    lines: out.split('\n').length - 1,
    bytes: out.length,
    code,
  };
}

const nameOf = (i: number) => `acct-${String(i).padStart(5, '0')}`;

/** Writes every account's keys: the feeds' state of an idle account that pulls; one in a hundred in trouble. */
async function seed(redis: ReturnType<typeof createRedis>, base: string, n: number): Promise<void> {
  const now = Date.now();
  const fresh = { lastPollAt: new Date(now - 5_000).toISOString(), caughtUpAt: new Date(now - 60_000).toISOString(), pages: '10' };
  for (let from = 0; from < n; from += 500) {
    const p = redis.pipeline();
    for (let i = from; i < Math.min(n, from + 500); i++) {
      const keys = redisKeys(accountPrefix(base, nameOf(i)));
      for (const s of STREAMS) p.hset(keys.feedState(s), fresh);
      if (i % 100 === 7) p.hset(keys.outage(), { state: 'open', since: String(now - 600_000), reason: '[TRANSIENT] 503' });
      if (i % 100 === 37) p.hset(keys.breaker('orders'), { state: 'open', since: String(now), reason: 'HTTP 401', code: 'UNAUTHORIZED' });
      if (i % 100 === 67)
        p.hset(keys.feedState('orders'), { lastError: 'HTTP 500 from the feed', lastErrorAt: new Date(now).toISOString() });
    }
    await p.exec();
  }
}

async function dropAccounts(redis: ReturnType<typeof createRedis>, base: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `{${base}-*`, 'COUNT', 5000);
    cursor = next;
    if (keys.length) await redis.unlink(...keys);
  } while (cursor !== '0');
}

/** `status` (the summary) and `status --json --summary` at each count; `status --all` too up to `allUpTo` accounts. */
export async function runAccountsStatus(o: { accounts: number[]; allUpTo: number; log: (line: string) => void }): Promise<StatusRun[]> {
  const redis = createRedis(REDIS_URL);
  const dir = mkdtempSync(join(tmpdir(), 'isync-bench-status-'));
  const runs: StatusRun[] = [];
  try {
    for (const n of o.accounts) {
      const base = `bench-status-${process.pid}-${n}`;
      o.log(`accounts-status: seeding ${n} accounts`);
      await seed(redis, base, n);
      const file = join(dir, `accounts-${n}.json`);
      const names = Array.from({ length: n }, (_, i) => nameOf(i));
      writeFileSync(file, JSON.stringify({ accounts: Object.fromEntries(names.map((a) => [a, { INVENTORY_ACCOUNT: a }])) }));
      const env = {
        PATH: process.env.PATH ?? '',
        REDIS_URL,
        QUEUE_PREFIX: base,
        ACCOUNTS_FILE: file,
        UPSTREAM_URL: 'http://127.0.0.1:9/feed',
        INVENTORY_BASE_URL: 'http://127.0.0.1:9',
        INVENTORY_API_KEY: 'k',
        INVENTORY_API_SECRET: 's',
        LOG_LEVEL: 'warn',
      };
      try {
        const commands = [['status'], ['status', '--json', '--summary'], ...(n <= o.allUpTo ? [['status', '--all']] : [])];
        for (const args of commands) {
          const r = await timed(args, env, n);
          o.log(`  ${JSON.stringify(r)}`);
          runs.push(r);
        }
      } finally {
        await dropAccounts(redis, base);
      }
    }
  } finally {
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
  return runs;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: { accounts: { type: 'string', default: '1000,10000' }, 'all-up-to': { type: 'string', default: '1000' } },
  });
  const say = (line: string) => process.stdout.write(`${line}\n`);
  await runAccountsStatus({ accounts: values.accounts.split(',').map(Number), allUpTo: Number(values['all-up-to']), log: say });
  process.exit(0);
}
