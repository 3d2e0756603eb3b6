/**
 * Where an idle account's Redis commands go (issue 36): one account's worker (the real CLI, dist/) on a private
 * redis-server, its feed polled and empty, and after the settling a MONITOR of `seconds` grouped by what sent each
 * command: a plain command by its name and its key (ids and the account's prefix folded), a script (BullMQ's or ours,
 * named from its SHA1) by its name and first key, the commands a script ran counted under it.
 *
 *   npx tsx bench/accounts-idle-monitor.ts [--seconds 30] [--settle 10] [--poll-seconds N]
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { startFeedServer } from '../src/feed/feed-server.js';
import { startRedisServer } from '../src/redis/embedded-server.js';
import { startSandbox } from '../src/sandbox/sandbox.js';
import { sandboxEnv } from '../src/app/sandbox-config.js';
import { declaredScripts } from '../src/redis/scripts.js';
import { STREAMS } from '../jobs/kinds.js';
import { buildDist } from './lib/build-dist.js';
import { spawnCli } from './lib/cli-process.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TOKEN = 'bench-token';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The modules that declare the program's scripts (grep -l 'redisScript(' src). */
const SCRIPT_MODULES = [
  'src/redis/hset-if-exists.ts',
  'src/redis/progress-hash.ts',
  'src/redis/keys-exist.ts',
  'src/redis/redis-lock.ts',
  'src/queue/hold/hold-scripts.ts',
  'src/client/budget/budget-scripts.ts',
  'src/client/budget/share-script.ts',
  'src/queue/lease/lease-scripts.ts',
  'src/queue/dispatch/account-work.ts',
  'src/queue/dispatch/ready-set.ts',
  'src/queue/hold/call-hold-scripts.ts',
  'src/feed/due-set.ts',
  'src/ops/accounts-glance.ts',
];
const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** SHA1 → name of every script a worker may run: BullMQ's commands and the program's own (`isync_*`). */
async function scriptNames(): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const bull = join(ROOT, 'node_modules/bullmq/dist/cjs/scripts');
  for (const file of readdirSync(bull).filter((f) => /^[a-zA-Z]+-\d+\.js$/.test(f))) {
    const mod = (await import(pathToFileURL(join(bull, file)).href)) as Record<string, { name?: string; content?: string }>;
    for (const v of Object.values(mod)) if (v?.name && v.content) names.set(sha1(v.content), `bull:${v.name}`);
  }
  for (const file of SCRIPT_MODULES) await import(pathToFileURL(join(ROOT, file)).href);
  for (const s of declaredScripts()) names.set(sha1(s.lua), s.command);
  return names;
}

/** A key with the account's prefix and the ids in it folded, so that one kind of key is one group. */
function foldKey(key: string | undefined): string {
  if (key === undefined) return '';
  return key
    .replace(/^\{[^}]*\}/, '{P}')
    .replace(/\b[0-9a-f]{8,}\b/g, '#')
    .replace(/\d+/g, '#');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '30' },
      settle: { type: 'string', default: '10' },
      'poll-seconds': { type: 'string' },
    },
  });
  const seconds = Number(values.seconds);
  const names = await scriptNames();
  const dist = buildDist(ROOT, (l) => process.stdout.write(`${l}\n`));
  const dir = mkdtempSync(join(tmpdir(), 'isync-idle-monitor-'));
  const server = await startRedisServer();
  const sandbox = await startSandbox({ data: 'demo' });
  const feed = await startFeedServer({ port: 0, names: STREAMS, streams: {}, token: TOKEN });
  const file = join(dir, 'accounts.json');
  writeFileSync(file, JSON.stringify({ accounts: { a0000: { UPSTREAM_URL: feed.url } } }));
  const proc = spawnCli({
    root: ROOT,
    name: 'worker',
    args: ['worker'],
    env: {
      REDIS_URL: server.url,
      QUEUE_PREFIX: 'idle',
      ACCOUNTS_FILE: file,
      ...sandboxEnv(sandbox),
      UPSTREAM_TOKEN: TOKEN,
      ...(values['poll-seconds'] ? { ORDER_POLL_SECONDS: values['poll-seconds'] } : {}),
      WORKER_HTTP_PORT: '0',
      LOG_LEVEL: 'warn',
    },
    logFile: join(dir, 'worker.log'),
    useDist: dist,
  });
  const monitor = new Redis(server.url);
  try {
    const probe = new Redis(server.url);
    // Ready once its schedules are in the due set (an idle account takes no turn: it has no workers).
    while ((await probe.keys('*:due')).length === 0) {
      if (!proc.alive()) throw new Error(`the worker ended early: see ${dir}`);
      await sleep(500);
    }
    await sleep(Number(values.settle) * 1000);
    const clients = (await probe.client('LIST')) as string;
    probe.disconnect();
    const groups = new Map<string, { top: number; inner: number }>();
    let parent = '';
    let total = 0;
    const m = await monitor.monitor();
    // ioredis gives each line's arguments parsed; its source is "lua" for a command a script ran.
    m.on('monitor', (_time: string, argv: string[], source: string) => {
      total++;
      const cmd = (argv[0] ?? '').toUpperCase();
      if (source === 'lua') {
        const g = groups.get(parent) ?? { top: 0, inner: 0 };
        g.inner++;
        groups.set(parent, g);
        return;
      }
      let key: string;
      if (cmd === 'EVALSHA' || cmd === 'EVAL') {
        const name = cmd === 'EVALSHA' ? (names.get(argv[1] ?? '') ?? argv[1]!.slice(0, 8)) : 'eval';
        key = `${name} ${foldKey(Number(argv[2]) > 0 ? argv[3] : undefined)}`;
        parent = key;
      } else {
        key = `${cmd} ${foldKey(argv[1])}`;
        parent = key;
      }
      const g = groups.get(key) ?? { top: 0, inner: 0 };
      g.top++;
      groups.set(key, g);
    });
    await sleep(seconds * 1000);
    m.disconnect();
    const rows = [...groups.entries()].sort((a, b) => b[1].top + b[1].inner - (a[1].top + a[1].inner));
    const say = (l: string) => process.stdout.write(`${l}\n`);
    say(`${total} commands in ${seconds} s = ${(total / seconds).toFixed(2)}/s (MONITOR; a script's own commands included)`);
    say('calls/s  +inner/s  total/s  group');
    for (const [k, g] of rows)
      say(
        `${(g.top / seconds).toFixed(2).padStart(7)}  ${(g.inner / seconds).toFixed(2).padStart(8)}  ${((g.top + g.inner) / seconds).toFixed(2).padStart(7)}  ${k}`,
      );
    say('\nclients:');
    for (const c of clients.split('\n').filter(Boolean)) {
      const f = Object.fromEntries(c.split(' ').map((kv) => kv.split('=') as [string, string]));
      say(`  ${f.name || '(no name)'} cmd=${f.cmd}`);
    }
  } finally {
    monitor.disconnect();
    await proc.stop(15_000);
    await feed.close();
    await sandbox.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
