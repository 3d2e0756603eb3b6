/**
 * What an account's parts cost a `worker` process's memory (issue 56), built for `accounts` accounts, one more part in
 * each of several processes (the entry alone first: the account's configuration read from the file), the heap (used
 * and external, after full GCs) and the RSS measured after: what each part adds per account. Over a private
 * redis-server; nothing is pulled (the due loop finds no run for its members). The first parts are those of the
 * account's whole parts, built one by one (openApp's logger, buildDeps's queues and the rest, its metrics registry,
 * its scheduled pulls), as an account that pulls held them between turns before issue 56's light parts; `pulls` is
 * what it holds now (src/cli/commands/account-pulls.ts, openPulls: its logger, feed source, queues opened when a page
 * has records and scheduled pulls; its metrics registry opens with its turn), measured from the entry alone.
 *
 *   node --expose-gc --import tsx bench/account-parts.ts [--accounts 500]   (--upto PART: one process, its build only)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { programKinds } from '../jobs/kinds.js';
import { fileAccountsSource, readWatchedAccounts } from '../src/app/accounts-watch.js';
import { buildDeps, catalogBudgetOf, type AppDeps } from '../src/app/build-deps.js';
import type { CliIo } from '../src/app/cli-io.js';
import { commandLogger } from '../src/app/command-context.js';
import { metricSources } from '../src/app/metric-sources.js';
import { startSchedules } from '../src/app/start-schedules.js';
import { startDueLoop } from '../src/feed/due-loop.js';
import type { Logger } from '../src/log/logger.js';
import { createMetrics } from '../src/metrics/metrics.js';
import { createQueues } from '../src/queue/queues.js';
import { openPulls, type PullParts } from '../src/cli/commands/account-pulls.js';
import { startRedisServer } from '../src/redis/embedded-server.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

async function settled(): Promise<{ heap: number; rss: number }> {
  // The parts finish opening (BullMQ's queues wait for the connection) before they are measured.
  await new Promise((r) => setTimeout(r, 2000));
  for (let i = 0; i < 3; i++) {
    gc!();
    await new Promise((r) => setImmediate(r));
  }
  const m = process.memoryUsage();
  // external counts the array buffers too.
  return { heap: m.heapUsed + m.external, rss: m.rss };
}

const { values } = parseArgs({ options: { accounts: { type: 'string', default: '500' }, upto: { type: 'string' } } });
const n = Number(values.accounts);
const parts = ['entry', 'logger', 'queues', 'deps', 'metrics', 'schedules', 'pulls'] as const;
const what: Record<(typeof parts)[number], string> = {
  entry: 'its entry (the configuration read from the file)',
  logger: "its logger (openApp's commandLogger: a pino logger an account)",
  queues: "buildDeps's queues (6 BullMQ queues: a record and an intake queue a stream)",
  deps: 'the rest of buildDeps (service client, budget, catalog, call holds, feed sources)',
  metrics: 'its metrics registry (createMetrics)',
  schedules: 'its scheduled pulls (startSchedules on the due loop)',
  pulls: "an account that pulls, between turns, now: openPulls (from the entry; the turn's parts open at its turn)",
};
if (values.upto === undefined) {
  // Each build in a process of its own, so that what one part left to collect is not counted in the next.
  const kb = (b: number) => Math.round(b / 102.4) / 10;
  let last = { heap: 0, rss: 0 };
  let entry = last;
  for (const part of parts) {
    // The pulls are measured from the entry alone (they replace the parts built one by one above).
    if (part === 'pulls') {
      process.stdout.write(
        `all (the whole parts, as held before): heap ${kb(last.heap)} KB, RSS ${kb(last.rss)} KB an account (${n} accounts)\n`,
      );
      last = entry;
    }
    const out = execFileSync(process.execPath, [...process.execArgv, process.argv[1]!, '--accounts', String(n), '--upto', part], {
      encoding: 'utf8',
    });
    const m = JSON.parse(out.trim().split('\n').at(-1)!) as { heap: number; rss: number };
    process.stdout.write(`${what[part]}: heap ${kb(m.heap - last.heap)} KB, RSS ${kb(m.rss - last.rss)} KB an account\n`);
    if (part === 'entry') entry = m;
    last = m;
  }
  process.stdout.write(`pulls in all (entry included): heap ${kb(last.heap)} KB, RSS ${kb(last.rss)} KB an account (${n} accounts)\n`);
  process.exit(0);
}
const dir = mkdtempSync(join(tmpdir(), 'isync-account-parts-'));
const server = await startRedisServer({});
const redis = new Redis(server.url);
const sink = new PassThrough();
sink.resume();
const accounts: Record<string, Record<string, string>> = {};
for (let i = 0; i < n; i++) accounts[`a${String(i).padStart(4, '0')}`] = { UPSTREAM_URL: 'http://127.0.0.1:9/feed' };
writeFileSync(join(dir, 'accounts.json'), JSON.stringify({ accounts }));
const io: CliIo = {
  env: {
    REDIS_URL: server.url,
    QUEUE_PREFIX: 'parts',
    ACCOUNTS_FILE: join(dir, 'accounts.json'),
    INVENTORY_BASE_URL: 'http://127.0.0.1:9',
    INVENTORY_ACCOUNT: 'bench',
    INVENTORY_API_KEY: 'k',
    INVENTORY_API_SECRET: 's',
    UPSTREAM_TOKEN: 't',
  },
  stdout: sink,
  stderr: sink,
  stdin: new PassThrough(),
  stop: new AbortController().signal,
};
const upto = parts.indexOf((values.upto ?? 'schedules') as (typeof parts)[number]);
const pullsOnly = parts[upto] === 'pulls';
const has = (part: (typeof parts)[number]) => !pullsOnly && parts.indexOf(part) <= upto;
const before = await settled();
const read = readWatchedAccounts(fileAccountsSource(io, programKinds, { service: true })!);
const base = read.accounts[0]!.config;
const catalogBudget = catalogBudgetOf(base);
const loggers: Logger[] = has('logger') ? read.accounts.map((a) => commandLogger(a.config, sink, [], { service: true })) : [];
// `queues`: an account's 6 BullMQ queues alone (a record and an intake queue a stream), as buildDeps opens them.
const apart =
  has('queues') && !has('deps')
    ? read.accounts.map((a) =>
        createQueues({ connection: redis, prefix: a.config.redis.prefix, jobs: a.config.jobs, streams: programKinds.map((k) => k.stream) }),
      )
    : [];
const deps: AppDeps[] = has('deps')
  ? read.accounts.map((a, i) => buildDeps(a.config, loggers[i]!, { redis, kinds: programKinds, catalogBudget }))
  : [];
const metrics = has('metrics')
  ? deps.map((d, i) => createMetrics({ sources: metricSources(d), defaultMetrics: false, labels: { account: read.accounts[i]!.name } }))
  : [];
const due = startDueLoop({ redis, key: 'parts:due', logger: loggers[0] ?? commandLogger(base, sink), resolve: async () => undefined });
const controls = [];
if (has('schedules')) for (const d of deps) controls.push(await startSchedules(d, programKinds, due));
const pulling: PullParts[] = [];
if (pullsOnly) {
  const p = { io, kinds: programKinds, logger: commandLogger(base, sink), redis, due };
  for (const a of read.accounts) pulling.push(await openPulls(p, a));
}
const after = await settled();
process.stdout.write(`${JSON.stringify({ upto: parts[upto], heap: (after.heap - before.heap) / n, rss: (after.rss - before.rss) / n })}\n`);
void metrics;
for (const c of controls) await c.close(0);
for (const c of pulling) await c.close(false, 0);
await due.close(0);
await Promise.all([...deps.map((d) => d.close()), ...apart.map((q) => q.close())]);
redis.disconnect();
await server.stop();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
