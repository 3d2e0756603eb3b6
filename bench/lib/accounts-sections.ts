/**
 * The report's section of issues 36 and 56 on what an idle account costs (bench/accounts-idle.ts), on one Redis or on a
 * local Redis Cluster of three masters; the fair work across accounts is accounts-fair-section.ts's.
 */
import { runAccountsIdle, type AccountsIdleFigures } from '../accounts-idle.js';
import type { BenchOptions } from './bench-options.js';
import type { Part } from './bench-doc.js';
import { markdownTable } from './tables.js';

type Measured = Pick<Part, 'title' | 'body'>;
export const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
const mb = (bytes: number) => Math.round(bytes / 1024 / 102.4) / 10;
const kb = (bytes: number) => Math.round(bytes / 1024);
/** The polling accounts' order feed: polled this often (issue 56's idle account polls an empty feed every 10 s). */
const POLL_SECONDS = 10;
/** Issue 56's worlds: 10,000 idle accounts that take pushes only, and 1,000 that poll an empty feed. */
const WORLD_ACCOUNTS = { pushedOnly: 10_000, polled: 1_000 };
/**
 * A process's RSS per account added is measured from a run of one process with a tenth of the accounts: the run's
 * RSS over its accounts counts the process's start-up (about 100 MB) in too.
 */
const MARGINAL_FRACTION = 10;
/** A run whose processes are not ready by then is given up (and said so under the table). */
const START_LIMIT_SECONDS = 600;
/** Issue 56's bounds per idle account. */
const TARGETS = { connections: 0.05, commandsPerSecond: 0.5, rssKb: 100 };
export const on = (cluster: boolean) =>
  cluster ? 'a local Redis Cluster of three masters (test/kit/local-cluster.ts)' : 'one redis-server';
const world = (f: AccountsIdleFigures) => (f.pushedOnly ? 'pushed only' : `polled every ${f.pollSeconds} s`);
/** A figure and its ratio to the issue's bound. */
const vs = (value: number, target: number) => `${value} (${Math.round((value / target) * 100) / 100}x)`;

interface IdleRun {
  accounts: number;
  processes: number;
  pushedOnly: boolean;
}

/** The runs of the section: each world with 1 and 3 processes, and one process with a tenth of its accounts (--quick: a tenth of each). */
function idleRuns(o: BenchOptions): IdleRun[] {
  return [true, false].flatMap((pushedOnly) => {
    const accounts = o.accounts ?? (pushedOnly ? WORLD_ACCOUNTS.pushedOnly : WORLD_ACCOUNTS.polled) / (o.quick ? 10 : 1);
    const fewer = Math.max(1, Math.round(accounts / MARGINAL_FRACTION));
    return [
      { accounts: fewer, processes: 1, pushedOnly },
      { accounts, processes: 1, pushedOnly },
      { accounts, processes: 3, pushedOnly },
    ];
  });
}

/**
 * What an account added costs, from the fewest accounts to the most (one process, one world): a process's RSS at rest
 * (KB), and the Redis commands a second; the process's start-up and its own looks at Redis are left out so.
 */
function marginal(runs: AccountsIdleFigures[], pushedOnly: boolean) {
  const one = runs.filter((f) => f.processes === 1 && f.pushedOnly === pushedOnly).sort((a, b) => a.accounts - b.accounts);
  const [lo, hi] = [one[0], one[one.length - 1]];
  if (!lo || !hi || hi.accounts <= lo.accounts) return undefined;
  const added = hi.accounts - lo.accounts;
  const commands = (hi.opsPerSecond - lo.opsPerSecond) / added;
  return {
    from: lo.accounts,
    to: hi.accounts,
    rssKb: kb((hi.rssNowPerProcessBytes - lo.rssNowPerProcessBytes) / added),
    commands,
    fixed: Math.round(lo.opsPerSecond - commands * lo.accounts),
  };
}

const r3 = (n: number) => Math.round(n * 1000) / 1000;

/** The lines under the table: what an account added costs, and what each process costs whatever the accounts. */
function marginalLines(runs: AccountsIdleFigures[]): string[] {
  const pushed = marginal(runs, true);
  const polled = marginal(runs, false);
  // An account polls the order feed every POLL_SECONDS and the BOM feed every 60 s; the sweep reads it either way.
  const polls = 1 / POLL_SECONDS + 1 / 60;
  const added = (m: NonNullable<typeof pushed>) =>
    `1 process, from ${m.from} accounts to ${m.to}: an account added grew the process's RSS by **${vs(m.rssKb, TARGETS.rssKb)} KB** ` +
    `and Redis's commands by **${vs(r3(m.commands), TARGETS.commandsPerSecond)} a second**`;
  return [
    ...(pushed
      ? [
          `Pushed only, ${added(pushed)}: ${Math.round(pushed.commands * 60)} commands a minute, the sweep's read of its queues ` +
            `(src/queue/dispatch/sweep.ts, one script an account). The process's own, whatever the accounts: about ${pushed.fixed} commands a second.`,
          '',
        ]
      : []),
    ...(polled
      ? [
          `Polled every ${POLL_SECONDS} s, ${added(polled)}` +
            (pushed
              ? `: past the sweep's share, ${r3(polled.commands - pushed.commands)} a second for its polls ` +
                `(${Math.round(polls * 600) / 10} scheduled a minute, the order feed's and the BOM feed's, each run when a process's due loop gets to it).`
              : '.'),
          '',
        ]
      : []),
  ];
}

/** Idle accounts: `npm run bench -- --only accounts-idle` (one Redis) or `accounts-idle-cluster`. */
export async function accountsIdleSection(o: BenchOptions, cluster: boolean, say: (line: string) => void): Promise<Measured> {
  // A whole minute measured: it holds one sweep of every account's queues (src/queue/dispatch/sweep.ts, once a minute);
  // a whole minute settled first: every account's first pull of its BOM feed (every 60 s; the one that stores its
  // cursor) is past, so what is measured is the idle, not the start.
  const [settle, seconds] = o.quick ? [8, 10] : [60, 60];
  const runs: AccountsIdleFigures[] = [];
  const failed: string[] = [];
  for (const r of idleRuns(o)) {
    const what = r.pushedOnly ? 'pushed only' : `polled every ${POLL_SECONDS} s`;
    say(`accounts-idle: ${r.accounts} idle accounts (${what}), ${r.processes} worker process(es), on ${on(cluster)}`);
    const f = await runAccountsIdle({
      startLimitSeconds: START_LIMIT_SECONDS,
      ...r,
      ...(r.pushedOnly ? {} : { pollSeconds: POLL_SECONDS }),
      seconds,
      settle,
      cluster,
      log: say,
    }).catch((err: unknown) => {
      say(`  failed: ${(err as Error).message}`);
      failed.push(`${r.accounts} accounts ${what}, ${r.processes} processes: ${(err as Error).message}`);
      return undefined;
    });
    if (!f) continue;
    say(`  ${JSON.stringify(f)}`);
    runs.push(f);
  }
  return {
    title: `Many accounts: what an idle account costs${cluster ? ' on a Redis Cluster' : ''}`,
    body: idleSectionBody(runs, failed, cluster, settle, seconds),
  };
}

/** Where an idle polled account's commands go: the one-process run with the most accounts, its commands a minute by name. */
function byCommandLines(runs: AccountsIdleFigures[]): string[] {
  const f = runs.filter((r) => !r.pushedOnly && r.processes === 1 && r.commandsPerAccountMinute).sort((a, b) => b.accounts - a.accounts)[0];
  if (!f) return [];
  const named = Object.entries(f.commandsPerAccountMinute).filter(([, n]) => n >= 0.05);
  return [
    `Polled every ${POLL_SECONDS} s, 1 process, ${f.accounts} accounts: an account's commands a minute by name (INFO commandstats over the ` +
      `measure, a script's own commands included): ${named.map(([c, n]) => `${c} ${n}`).join(', ')}. An empty poll is the cursor's GET, the ` +
      "feed state's HSET and the claim's ZADD (src/feed/producer.ts, due-set.ts); the sweep's, once a minute, its script, an EXISTS and " +
      "an HMGET a polled stream's feed state.",
    '',
  ];
}

/** The section's text from its runs' figures (bench/accounts-idle.ts prints each run's as a JSON line). */
export function idleSectionBody(
  runs: AccountsIdleFigures[],
  failed: string[],
  cluster: boolean,
  settle: number,
  seconds: number,
): string[] {
  const flag = cluster ? ' --cluster' : '';
  const perProcess = [...new Set(runs.map((f) => Math.round((f.connections / f.processes) * 10) / 10))].join(' or ');
  const pushed = runs.find((f) => f.pushedOnly && f.processes === 3)?.accounts;
  const polled = runs.find((f) => !f.pushedOnly && f.processes === 3)?.accounts;
  return [
    `Idle accounts in one ACCOUNTS_FILE served by 1 and by 3 \`inventory-sync worker\` processes (the real CLI, dist/) on ${on(cluster)} of ` +
      `their own, in two worlds: **pushed only**, ${pushed} accounts (no UPSTREAM_URL: the accounts take pushes, none comes, nothing is polled), and ` +
      `**polled every ${POLL_SECONDS} s**, ${polled} accounts (the order feed, ORDER_POLL_SECONDS=${POLL_SECONDS}, and the BOM feed every 60 s, ` +
      'polled and empty; one feed server and one sandbox for them all). Each world also runs once with a tenth of the accounts in one process, ' +
      "for what a process's memory grows by per account added. The program's defaults otherwise: an account with work takes a turn " +
      '(docs/accounts.md, "How accounts take turns"); these have none, so no process opens one (the open accounts at the end: leases in the ready set).',
    '',
    `Ready: from each process's spawn to its \`worker started\` line (the slowest process's), logged once every account of the file is in it ` +
      '(an entry; for an account that pulls, its parts opened and its schedules in the due set). ' +
      'Then, once no scheduled pull is overdue (every first poll done), ' +
      `${settle} s more (the first pull of each BOM feed, the one that stores its cursor, is then past), and measured over ${seconds} s: Redis commands ` +
      'a second (INFO `total_commands_processed`, summed over the masters; a script counts with the commands it runs), the Redis memory added since ' +
      "before the processes started (`used_memory`: keys and client buffers), the keys, the clients connected, the worker processes' CPU (summed, " +
      "/proc), and each process's resident memory (VmHWM, the peak, and at rest: the median of its VmRSS read once a second through the " +
      'measure, so that one reading taken as V8 grows or gives back its heap does not decide it). Per account: divided by the accounts (RSS: a ' +
      "process's at rest, start-up included, as each process holds every account). In brackets: the figure over issue 56's bound for an idle account " +
      `(${TARGETS.connections} connections, ${TARGETS.commandsPerSecond} commands a second, ${TARGETS.rssKb} KB of each process's memory): 1x is at the ` +
      "bound. The ready times and the CPU are timings: they move with the machine's load (the line above).",
    '',
    `Commands: \`npx tsx bench/accounts-idle.ts --accounts N --processes 1,3 --seconds ${seconds} --settle ${settle}${flag} --pushed-only\` ` +
      `and \`npx tsx bench/accounts-idle.ts --accounts N --processes 1,3 --seconds ${seconds} --settle ${settle}${flag} --poll-seconds ${POLL_SECONDS}\``,
    '',
    markdownTable(
      [
        'idle accounts',
        'processes',
        'accounts',
        'ready: `worker started` after s',
        'open at the end',
        'connections',
        'connections an account',
        'Redis commands/s',
        'commands/s an account',
        'Redis memory an account KB',
        'keys an account',
        'workers CPU % of a core',
        'RSS a process MB, peak / at rest',
        'RSS a process / accounts KB',
      ],
      runs.map((f) => [
        world(f),
        f.processes,
        f.accounts,
        f.readySeconds,
        f.openAccounts,
        f.connections,
        vs(f.connectionsPerAccount, TARGETS.connections),
        f.opsPerSecond,
        vs(Math.round(f.opsPerSecondPerAccount * 1000) / 1000, TARGETS.commandsPerSecond),
        Math.round(f.memoryPerAccountBytes / 102.4) / 10,
        f.keysPerAccount,
        f.cpuPercent ?? 'n/a',
        `${mb(f.rssPerProcessBytes)} / ${mb(f.rssNowPerProcessBytes)}`,
        vs(kb(f.rssNowPerProcessBytes / f.accounts), TARGETS.rssKb),
      ]),
    ),
    '',
    ...marginalLines(runs),
    ...byCommandLines(runs),
    ...(failed.length ? [`Not measured: ${failed.join('; ')}.`, ''] : []),
    `An idle account holds no connection and no worker in any process: ${perProcess} connection(s) a process, whatever the accounts ` +
      `(its connection for plain commands${cluster ? ', one to each master' : ''}). The Redis commands of an idle deployment are each ` +
      "process's look at the ready set (4 a second, a claim script per shard) and at the due set, and one process's sweep of every account's " +
      'queues once a minute; an account that polls adds its polls. A process holds an entry per account (its configuration) and, for an ' +
      'account that pulls, its parts (docs/accounts.md, "Sizing").',
  ];
}
