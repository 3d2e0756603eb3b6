/**
 * Redis kept per synced record (docs/redis.md "Redis sizing"): N orders, then N stock counts, then N BOMs,
 * synced by the real workers against the sandbox; the keys of the prefix measured (`MEMORY USAGE`, and `INFO
 * memory` used_memory as a cross-check) before and after each stream, grouped by the documented key patterns;
 * then what the retention periods leave, by running what retention does: BullMQ's trim of completed jobs, and
 * every key with a life removed as Redis would once it passed.
 *
 *   npx tsx bench/redis-sizing.ts [--records 2000]   (or npm run bench -- --only redis)
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { Redis } from 'ioredis';
import { STREAMS, programKinds, type ProgramStream } from '../jobs/kinds.js';
import { buildDeps } from '../src/app/build-deps.js';
import { sandboxConfig } from '../src/app/sandbox-config.js';
import { createLogger } from '../src/log/logger.js';
import { waitForIdle } from '../src/queue/drain.js';
import { addJobs, recordJob } from '../src/queue/record-jobs.js';
import { startWorkers } from '../src/queue/worker-pool.js';
import { createRedis, deleteKeysUnder, redisKeys } from '../src/redis/connection.js';
import { startSandbox } from '../src/sandbox/sandbox.js';
import { keyClassifier, readKeyBounds, type KeyBound } from '../test/kit/key-bounds.js';
import { benchOrders } from './lib/order-records.js';
import { keyUsage, usedMemory, type KeyUsage } from '../test/kit/redis-usage.js';
import { benchBoms, benchCounts } from './lib/sizing-records.js';
import type { Groups, SizingFigures, StreamSizing } from './lib/sizing-report.js';

function group(usage: KeyUsage[], classify: (key: string) => KeyBound | undefined): Groups {
  const out: Groups = new Map();
  for (const u of usage) {
    const bound = classify(u.key);
    const name = bound?.pattern ?? `(undocumented) ${u.key}`;
    const g = out.get(name) ?? { bound, keys: 0, bytes: 0, entries: 0 };
    g.keys++;
    g.bytes += u.bytes;
    g.entries += u.length;
    out.set(name, g);
  }
  return out;
}

function minus(after: Groups, before: Groups): Groups {
  const out: Groups = new Map();
  for (const [name, a] of after) {
    const b = before.get(name);
    const g = { bound: a.bound, keys: a.keys - (b?.keys ?? 0), bytes: a.bytes - (b?.bytes ?? 0), entries: a.entries - (b?.entries ?? 0) };
    if (g.keys !== 0 || g.bytes !== 0) out.set(name, g);
  }
  return out;
}

function recordsOf(stream: ProgramStream, n: number, tag: string): unknown[] {
  if (stream === 'orders') return benchOrders(tag, n);
  if (stream === 'stock-counts') return benchCounts(tag, n);
  return benchBoms(n);
}

/** Runs retention's work now: BullMQ's trim of completed jobs by age, and the expiry of every key with a life. */
async function runRetention(
  redis: Redis,
  prefix: string,
  queues: { get(s: ProgramStream): { clean(grace: number, limit: number, type: 'completed'): Promise<string[]> } },
  streams: ProgramStream[],
): Promise<void> {
  for (const s of streams)
    while ((await queues.get(s).clean(0, 10_000, 'completed')).length) {
      /* trimmed in batches */
    }
  const expiring = (await keyUsage(redis, prefix)).filter((u) => u.pttlMs > 0).map((u) => u.key);
  for (let i = 0; i < expiring.length; i += 1000) await redis.del(...expiring.slice(i, i + 1000));
}

export async function runRedisSizing(o: { records: number; log?: (line: string) => void; redisUrl?: string }): Promise<SizingFigures> {
  const log = o.log ?? (() => undefined);
  const url = o.redisUrl ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const sandbox = await startSandbox({ data: 'demo' });
  const redis = createRedis(url);
  const prefix = `bench-redis-${process.pid}`;
  const logger = createLogger({ level: 'silent' });
  const config = sandboxConfig(sandbox, {
    redis: url,
    prefix,
    catalogRefreshSeconds: 300,
    budgets: { postPerMinute: 1e6, getPerMinute: 1e6, collectionPerHour: 1e6 },
  });
  const built = buildDeps(config, logger, { redis, kinds: programKinds });
  const classify = keyClassifier(readKeyBounds(), prefix);
  const streams: ProgramStream[] = [...STREAMS];
  let pool: Awaited<ReturnType<typeof startWorkers>> | undefined;
  try {
    await deleteKeysUnder(redis, prefix);
    await built.catalog.refresh();
    pool = await startWorkers({
      kinds: [...programKinds],
      connection: { url },
      prefix,
      deps: { client: built.client, catalog: built.catalog, redis, keys: redisKeys(prefix), logger, jobs: config.jobs, goLive: {} },
      concurrency: config.jobs.concurrency,
      logger,
    });
    const out: StreamSizing[] = [];
    for (const stream of streams) {
      const before = group(await keyUsage(redis, prefix), classify);
      const mem0 = await usedMemory(redis);
      const t0 = performance.now();
      const records = recordsOf(stream, o.records, `RS-${Date.now()}`);
      const kind = programKinds.find((k) => k.stream === stream)!;
      for (let i = 0; i < records.length; i += 500) {
        await addJobs(
          built.queues.get(stream),
          redis,
          records.slice(i, i + 500).map((r) => recordJob(kind, r, 'feed').job),
          kind,
        );
      }
      await waitForIdle([built.queues.get(stream)], { pollMs: 100, signal: AbortSignal.timeout(600_000) });
      const seconds = (performance.now() - t0) / 1000;
      const counts = await built.queues.get(stream).getJobCounts('completed', 'failed');
      if (counts.failed) throw new Error(`${counts.failed} ${stream} jobs failed: the sizing needs every record synced`);
      const added = minus(group(await keyUsage(redis, prefix), classify), before);
      out.push({ stream, records: records.length, seconds, added, usedMemoryDelta: (await usedMemory(redis)) - mem0 });
      log(`redis: ${records.length} ${stream} synced in ${seconds.toFixed(1)} s (${counts.completed} completed jobs)`);
    }
    const steady = group(await keyUsage(redis, prefix), classify);
    await runRetention(redis, prefix, built.queues, streams);
    const retained = group(await keyUsage(redis, prefix), classify);
    return { records: o.records, streams: out, steady, retained };
  } finally {
    await pool?.close(1_000);
    await built.close();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
    await sandbox.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { records: { type: 'string' } } });
  const { sizingReport } = await import('./lib/sizing-report.js');
  const f = await runRedisSizing({ records: Number(values.records ?? 2000), log: (l) => process.stdout.write(`${l}\n`) });
  process.stdout.write(`${sizingReport(f, 'npx tsx bench/redis-sizing.ts').join('\n')}\n`);
  process.exit(0);
}
