/**
 * What an idle account costs (issues 36 and 56): `accounts` accounts of one ACCOUNTS_FILE served by `processes` worker
 * processes (the real CLI, dist/) on a private redis-server, every account idle: its feeds polled and empty (every
 * account's feed is one empty feed server, its service one sandbox), or, with `--pushed-only`, no UPSTREAM_URL at all
 * (the accounts take pushes only, and none comes). Measured after the accounts have started and settled: the Redis
 * commands a second (INFO stats total_commands_processed, less the measuring's own), the Redis memory and keys, the
 * connections, the processes' CPU and each process's RSS (its peak, and at rest: the median of a reading a second through
 * the measure); each also per account; and the accounts open at the end
 * (their leases in the ready set, src/queue/dispatch/ready-set.ts: an idle account has none). And how soon each process
 * was ready: from its spawn to its `worker started` line (the time in the line), logged once every account of the file
 * is in it (an entry; and, for one that pulls, its parts and its schedules in the due set).
 * `--cluster` runs the same on a local Redis Cluster of three masters (test/kit/local-cluster.ts).
 *
 * `--poll-seconds N` sets the order feed's poll (ORDER_POLL_SECONDS; default: the program's, 5; the BOM feed keeps its 60).
 *
 *   npx tsx bench/accounts-idle.ts [--accounts 200] [--processes 1,3] [--seconds 30] [--settle 20] [--cluster]
 *     [--pushed-only | --poll-seconds N]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { startFeedServer } from '../src/feed/feed-server.js';
import { startRedisServer } from '../src/redis/embedded-server.js';
import { startSandbox } from '../src/sandbox/sandbox.js';
import { sandboxEnv } from '../src/app/sandbox-config.js';
import { STREAMS } from '../jobs/kinds.js';
import { buildDist } from './lib/build-dist.js';
import { spawnCli, type CliProcess } from './lib/cli-process.js';
import { peakRss } from './lib/peak-rss.js';
import { commandCalls, countKeys, dueCaughtUp, infoSum, leased, restingRss } from './lib/idle-readings.js';
import { processCpuMs } from './lib/proc-cpu.js';
import { startLocalCluster } from '../test/kit/local-cluster.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TOKEN = 'bench-token';
const PREFIX = 'idle';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

export interface AccountsIdleOptions {
  accounts: number;
  processes: number;
  /** Seconds measured, after the settling. Default 30. */
  seconds?: number;
  /** Seconds after every process is ready before measuring (the first sweep, the first polls). Default 20. */
  settle?: number;
  cluster?: boolean;
  /** No UPSTREAM_URL: the accounts take pushes only (none comes), nothing is polled. Default false: every feed polled. */
  pushedOnly?: boolean;
  /** Seconds between the polls of the order feed (ORDER_POLL_SECONDS; the BOM feed keeps its 60). Default: the program's. */
  pollSeconds?: number;
  /** Seconds the processes may take to be ready before the run fails. Default 600. */
  startLimitSeconds?: number;
  /** NODE_OPTIONS for the worker processes (V8's heap settings, say), to compare with none in one run. */
  nodeOptions?: string;
  log?: (line: string) => void;
}

export interface AccountsIdleFigures {
  accounts: number;
  processes: number;
  cluster: boolean;
  pushedOnly: boolean;
  /** The order feed's poll, s (null: the program's default; pushed only: none). */
  pollSeconds: number | null;
  /** Seconds from a process's spawn to its `worker started` line, the slowest process's. */
  readySeconds: number;
  /** The same, each process's. */
  readyEachSeconds: number[];
  /** Accounts open in some process at the end of the measure (leases in the ready set): idle, none should be. */
  openAccounts: number;
  opsPerSecond: number;
  opsPerSecondPerAccount: number;
  memoryBytes: number;
  memoryPerAccountBytes: number;
  keys: number;
  keysPerAccount: number;
  connections: number;
  connectionsPerAccount: number;
  /** CPU the worker processes used over the measure, summed, in % of one core (null where /proc is absent). */
  cpuPercent: number | null;
  /** Peak resident memory (VmHWM), summed over the processes, after the measure. */
  rssBytes: number;
  rssPerProcessBytes: number;
  /** A process's RSS / accounts (each process runs every account): its start-up base included. */
  rssPerAccountBytes: number;
  /**
   * Resident memory at rest (VmRSS), a process's (the mean over the processes): each process's median of its readings
   * once a second through the measure, so that one reading taken as V8 grows or gives back its heap does not decide it.
   */
  rssNowPerProcessBytes: number;
  /** The highest of those readings, a process's (the mean over the processes). */
  rssRestMaxPerProcessBytes: number;
  /** The commands an account sent a minute, by command (INFO commandstats over the measure), the most first. */
  commandsPerAccountMinute: Record<string, number>;
}

/** When a process logged `worker started` (ms since the epoch, from the line's time), if it did yet. */
function workerStartedAt(logFile: string): number | undefined {
  for (const line of readFileSync(logFile, 'utf8').split('\n'))
    if (line.includes('"msg":"worker started')) return Number((JSON.parse(line) as { time: number }).time);
  return undefined;
}

/** dist/ compiled once a run of this program (what `npx inventory-sync` runs). */
let built: boolean | undefined;

export async function runAccountsIdle(o: AccountsIdleOptions): Promise<AccountsIdleFigures> {
  const log = o.log ?? (() => undefined);
  const seconds = o.seconds ?? 30;
  const settle = o.settle ?? 20;
  built ??= buildDist(ROOT, log);
  const dist = built;
  const dir = mkdtempSync(join(tmpdir(), 'isync-accounts-idle-'));
  const cluster = o.cluster ? await startLocalCluster() : undefined;
  // 1,000 accounts in 3 processes hold more than Redis's default 10,000 clients while they start.
  const server = cluster ? undefined : await startRedisServer({ args: ['--maxclients', '19000'] });
  const nodes = cluster ? cluster.nodes.map((n) => new Redis({ port: n.port, host: n.host })) : [new Redis(server!.url)];
  const redisEnv: Record<string, string> = cluster
    ? { REDIS_CLUSTER_NODES: cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',') }
    : { REDIS_URL: server!.url };
  const sandbox = await startSandbox({ data: 'demo' });
  const feed = o.pushedOnly ? undefined : await startFeedServer({ port: 0, names: STREAMS, streams: {}, token: TOKEN });
  const polls: Record<string, string> = feed
    ? {
        UPSTREAM_TOKEN: TOKEN,
        ...(o.pollSeconds ? { ORDER_POLL_SECONDS: String(o.pollSeconds) } : {}),
      }
    : {};
  const file = join(dir, 'accounts.json');
  const accounts: Record<string, Record<string, string>> = {};
  for (let i = 0; i < o.accounts; i++) accounts[`a${String(i).padStart(4, '0')}`] = feed ? { UPSTREAM_URL: feed.url } : {};
  writeFileSync(file, JSON.stringify({ accounts }));
  const procs: CliProcess[] = [];
  try {
    const memory0 = await infoSum(nodes, 'used_memory', 'memory');
    const started = Date.now();
    const spawned: number[] = [];
    for (let p = 0; p < o.processes; p++) {
      spawned.push(Date.now());
      procs.push(
        spawnCli({
          root: ROOT,
          name: `worker-${p}`,
          args: ['worker'],
          env: {
            ...redisEnv,
            QUEUE_PREFIX: PREFIX,
            ACCOUNTS_FILE: file,
            ...sandboxEnv(sandbox),
            ...polls,
            WORKER_HTTP_PORT: '0',
            ...(o.nodeOptions ? { NODE_OPTIONS: o.nodeOptions } : {}),
            // info: the `worker started` line, whose time is the process's ready time.
            LOG_LEVEL: 'info',
          },
          logFile: join(dir, `worker-${p}.log`),
          useDist: dist,
        }),
      );
    }
    const ready: Array<number | undefined> = procs.map(() => undefined);
    for (;;) {
      procs.forEach((p, i) => (ready[i] ??= workerStartedAt(p.logFile)));
      if (ready.every((r) => r !== undefined)) break;
      if (procs.some((p) => !p.alive())) throw new Error(`a worker process ended early: see ${dir}`);
      const limit = o.startLimitSeconds ?? 600;
      if (Date.now() - started > limit * 1000)
        throw new Error(`${ready.filter((r) => r === undefined).length} of ${o.processes} processes not ready in ${limit} s`);
      await sleep(500);
    }
    const readyEachSeconds = ready.map((r, i) => round((r! - spawned[i]!) / 1000));
    // Every account's first polls (due at once when it starts) worked off: what is measured is the idle, not the start.
    const caughtUp = await dueCaughtUp(nodes, PREFIX, (o.startLimitSeconds ?? 600) * 1000);
    log(
      `accounts-idle: ${o.accounts} accounts; \`worker started\` after ${readyEachSeconds.join(', ')} s; ` +
        `first polls done ${round(caughtUp / 1000)} s later; settling ${settle} s`,
    );
    await sleep(settle * 1000);
    const cpu = () =>
      procs.reduce<number | undefined>((sum, p) => {
        const ms = processCpuMs(p.pid);
        return sum === undefined || ms === undefined ? undefined : sum + ms;
      }, 0);
    const cpu0 = cpu();
    const calls0 = await commandCalls(nodes);
    const ops0 = await infoSum(nodes, 'total_commands_processed', 'stats');
    const t0 = Date.now();
    const rest = restingRss(procs.map((p) => p.pid));
    await sleep(seconds * 1000);
    const resting = rest.stop();
    const ops1 = await infoSum(nodes, 'total_commands_processed', 'stats');
    const calls1 = await commandCalls(nodes);
    const elapsed = (Date.now() - t0) / 1000;
    const cpu1 = cpu();
    // The two INFO calls per master of this measure are not the accounts'.
    const opsPerSecond = (ops1 - ops0 - nodes.length) / elapsed;
    const memoryBytes = (await infoSum(nodes, 'used_memory', 'memory')) - memory0;
    const keys = await countKeys(nodes);
    const connections = (await infoSum(nodes, 'connected_clients', 'clients')) - nodes.length;
    const rssBytes = procs.reduce((s, p) => s + (peakRss(p.pid) ?? 0), 0);
    const openAccounts = await leased(nodes, PREFIX);
    const perMinute = (n: number) => round((n / elapsed / o.accounts) * 60, 2);
    const byCommand = [...calls1].map(([c, n]) => [c, perMinute(n - (calls0.get(c) ?? 0))] as const);
    return {
      accounts: o.accounts,
      processes: o.processes,
      cluster: Boolean(o.cluster),
      pushedOnly: Boolean(o.pushedOnly),
      pollSeconds: o.pushedOnly ? null : (o.pollSeconds ?? null),
      readySeconds: Math.max(...readyEachSeconds),
      readyEachSeconds,
      openAccounts,
      opsPerSecond: round(opsPerSecond),
      opsPerSecondPerAccount: round(opsPerSecond / o.accounts, 3),
      memoryBytes,
      memoryPerAccountBytes: Math.round(memoryBytes / o.accounts),
      keys,
      keysPerAccount: round(keys / o.accounts),
      connections,
      connectionsPerAccount: round(connections / o.accounts, 2),
      cpuPercent: cpu0 === undefined || cpu1 === undefined ? null : round((cpu1 - cpu0) / elapsed / 10),
      rssBytes,
      rssPerProcessBytes: Math.round(rssBytes / o.processes),
      rssPerAccountBytes: Math.round(rssBytes / o.processes / o.accounts),
      rssNowPerProcessBytes: Math.round(resting.median / o.processes),
      rssRestMaxPerProcessBytes: Math.round(resting.max / o.processes),
      commandsPerAccountMinute: Object.fromEntries(byCommand.filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1])),
    };
  } finally {
    await Promise.all(procs.map((p) => p.stop(15_000)));
    for (const n of nodes) n.disconnect();
    await feed?.close();
    await sandbox.close();
    await server?.stop();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      accounts: { type: 'string', default: '200' },
      processes: { type: 'string', default: '1,3' },
      seconds: { type: 'string', default: '30' },
      settle: { type: 'string', default: '20' },
      cluster: { type: 'boolean', default: false },
      'pushed-only': { type: 'boolean', default: false },
      'poll-seconds': { type: 'string' },
      'node-options': { type: 'string' },
    },
  });
  const say = (line: string) => process.stdout.write(`${line}\n`);
  for (const processes of values.processes.split(',').map(Number)) {
    const f = await runAccountsIdle({
      accounts: Number(values.accounts),
      processes,
      seconds: Number(values.seconds),
      settle: Number(values.settle),
      cluster: values.cluster,
      pushedOnly: values['pushed-only'],
      ...(values['poll-seconds'] === undefined ? {} : { pollSeconds: Number(values['poll-seconds']) }),
      ...(values['node-options'] ? { nodeOptions: values['node-options'] } : {}),
      log: say,
    });
    say(JSON.stringify(f));
  }
}
