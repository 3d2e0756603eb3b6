/**
 * Pushed records, the receiver alone (issue 27): `inventory-sync receive` (a child process) takes signed Standard
 * Webhooks deliveries of one order each from a sender in this process (`concurrency` requests in flight over
 * keep-alive connections, a new webhook-id and signature each). Measures deliveries acknowledged a second, the
 * acknowledgement's p50 and p99, the receiver's resident memory as the deliveries go by, and that every acknowledged
 * record is a job in Redis.
 *
 *   npx tsx bench/push-accept.ts [--deliveries 100000] [--concurrency 32] [--rate 1000]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Queue } from 'bullmq';
import { Pool } from 'undici';
import { createRedis, deleteKeysUnder } from '../src/redis/connection.js';
import { freePort } from '../src/net/free-port.js';
import { startSandbox } from '../src/sandbox/sandbox.js';
import { spawnCli, waitForLog } from './lib/cli-process.js';
import { benchOrders } from './lib/order-records.js';
import { processCpuMs } from './lib/proc-cpu.js';
import { newWebhookSecret, percentile, webhookHeaders } from './lib/push-signing.js';
import { sandboxEnv } from '../src/app/sandbox-config.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface PushAcceptOptions {
  /** Deliveries in all (one order each). Default 100,000. */
  deliveries?: number;
  /** Requests in flight at once (connections), and senders when no rate is given. Default 32. */
  concurrency?: number;
  /** Deliveries a second, sent on time whatever the answers take; none: as fast as `concurrency` senders go. */
  rate?: number;
  /** Deliveries sent before the measurement starts (not counted in the rate or the percentiles). Default 2,000. */
  warmUp?: number;
  log?: (line: string) => void;
}

export interface MemoryPoint {
  /** Deliveries acknowledged when the sample was taken. */
  delivered: number;
  /** The receiver's resident memory then, MB. */
  rssMb: number;
}

export interface PushAcceptFigures {
  deliveries: number;
  concurrency: number;
  /** The rate offered, a second (none: as fast as answered). */
  rate: number | undefined;
  /** Acknowledged deliveries a second over the measured part, and the acknowledgement's latency. */
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Answers other than 2xx (should be none). */
  refused: number;
  /** The receiver's CPU a delivery, ms (undefined without /proc). */
  cpuMsPerDelivery: number | undefined;
  /** Resident memory every tenth of the run; growth is the last sample against the one after the warm-up. */
  memory: MemoryPoint[];
  rssGrowthMb: number;
  /** Jobs in the orders queue afterwards: every acknowledged delivery is one. */
  jobsQueued: number;
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}

/** A sender: signs each body as Standard Webhooks says and POSTs it; answers the status and the ms it took. */
function sender(url: string, secret: string, connections: number) {
  const pool = new Pool(url, { connections, pipelining: 1 });
  return {
    async send(id: string, body: string): Promise<{ status: number; ms: number }> {
      const headers = webhookHeaders(secret, id, body);
      const started = performance.now();
      const res = await pool.request({ path: '/ingest/orders', method: 'POST', headers, body });
      await res.body.dump();
      return { status: res.statusCode, ms: performance.now() - started };
    },
    close: () => pool.close(),
  };
}

/** `concurrency` senders, each sending its next delivery as soon as the last one is answered: the most it takes. */
async function closedLoop(total: number, concurrency: number, deliver: (i: number, due: number) => Promise<void>): Promise<void> {
  let next = 0;
  const one = async () => {
    for (let i = next++; i < total; i = next++) await deliver(i, performance.now());
  };
  await Promise.all(Array.from({ length: concurrency }, one));
}

/** Deliveries at a fixed rate a second, whatever the answers take (as many senders do), each timed from its due time. */
async function atRate(total: number, rate: number, deliver: (i: number, due: number) => Promise<void>): Promise<void> {
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const p = deliver(i, due).finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
}

export async function runPushAccept(o: PushAcceptOptions = {}): Promise<PushAcceptFigures> {
  const log = o.log ?? (() => undefined);
  const total = o.deliveries ?? 100_000;
  const concurrency = o.concurrency ?? 32;
  const warmUp = Math.min(o.warmUp ?? 2_000, Math.floor(total / 10));
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `bench-push-${process.pid}`;
  const redis = createRedis(redisUrl);
  const sandbox = await startSandbox({ port: 0, data: 'demo' });
  const dir = mkdtempSync(join(tmpdir(), 'isync-push-bench-'));
  const logFile = join(dir, 'receive.log');
  const secret = newWebhookSecret();
  const port = await freePort();
  const receiver = spawnCli({
    root: ROOT,
    name: 'receive',
    args: ['receive', '--port', String(port)],
    env: {
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: prefix,
      ...sandboxEnv(sandbox),
      INGEST_SECRET: secret,
      // One sender here stands for many: the per-sender limit (2,000 a second by default) is not what is measured.
      INGEST_RATE_PER_SECOND: '1000000',
      LOG_LEVEL: 'info',
    },
    logFile,
  });
  const lines = () => readFileSync(logFile, 'utf8');
  const send = sender(`http://127.0.0.1:${port}`, secret, concurrency);
  try {
    await waitForLog(lines, /receiver started/, 60_000, 'the receiver');
    const latencies = new Float64Array(total - warmUp);
    const memory: MemoryPoint[] = [];
    const step = Math.max(1, Math.floor(total / 10));
    let done = 0;
    let refused = 0;
    let measuredFrom = 0;
    let cpuFrom: number | undefined;
    const template = benchOrders('PUSH', 1)[0]!;
    /** Sends delivery i; its latency counts from `due` (its scheduled time under a fixed rate: no coordinated omission). */
    const deliver = async (i: number, due: number) => {
      const body = JSON.stringify({ ...template, orderId: `PUSH-${i + 1}` });
      const r = await send.send(`msg_bench_${process.pid}_${i}`, body);
      if (r.status < 200 || r.status > 299) refused++;
      if (i >= warmUp) latencies[i - warmUp] = performance.now() - due;
      done++;
      if (done === warmUp) {
        measuredFrom = performance.now();
        cpuFrom = processCpuMs(receiver.pid);
      }
      if (done % step === 0) {
        memory.push({ delivered: done, rssMb: rssMb(receiver.pid) });
        log(`push: ${done.toLocaleString('en')} acknowledged, receiver ${memory.at(-1)!.rssMb} MB`);
      }
    };
    if (o.rate) await atRate(total, o.rate, deliver);
    else await closedLoop(total, concurrency, deliver);
    const seconds = (performance.now() - measuredFrom) / 1000;
    const cpuTo = processCpuMs(receiver.pid);
    latencies.sort();
    const queue = new Queue('orders', { connection: redis, prefix });
    const counts = await queue.getJobCounts('wait', 'prioritized');
    await queue.close();
    const jobsQueued = Object.values(counts).reduce((a, b) => a + b, 0);
    const first = memory.find((m) => m.delivered >= warmUp) ?? memory[0]!;
    return {
      deliveries: total,
      concurrency,
      rate: o.rate,
      perSecond: Math.round((total - warmUp) / seconds),
      p50Ms: Math.round(percentile(latencies, 50) * 10) / 10,
      p99Ms: Math.round(percentile(latencies, 99) * 10) / 10,
      maxMs: Math.round(latencies[latencies.length - 1]! * 10) / 10,
      refused,
      cpuMsPerDelivery:
        cpuFrom === undefined || cpuTo === undefined ? undefined : Math.round(((cpuTo - cpuFrom) / (total - warmUp)) * 1000) / 1000,
      memory,
      rssGrowthMb: memory.at(-1)!.rssMb - first.rssMb,
      jobsQueued,
    };
  } finally {
    await send.close();
    await receiver.stop();
    await sandbox.close();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : undefined;
  };
  const f = await runPushAccept({ deliveries: arg('deliveries'), concurrency: arg('concurrency'), rate: arg('rate'), log: console.log });
  console.log(JSON.stringify(f, null, 2));
}
