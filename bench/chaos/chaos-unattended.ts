/**
 * The incidents a worker must ride out alone (issue 26), as phases of the storm: the service down for longer than the
 * jobs' retries, and Redis full (writes refused) then raised. No person acts in either: each phase's check is that the
 * system went on by itself, with few requests to a service that is down and few log lines while Redis refuses writes.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Queue } from 'bullmq';
import type { RedisConnection } from '../../src/redis/connection.js';
import { redisKeys } from '../../src/redis/connection.js';
import { readBreaker } from '../../src/queue/hold/refusal-state.js';
import { readOutage } from '../../src/queue/hold/outage-state.js';
import { STREAMS } from '../../jobs/kinds.js';
import { faultPlan } from './chaos-env.js';
import type { ChaosOptions } from './chaos-options.js';
import type { ChaosWorld } from './chaos-world.js';
import { check, type CheckResult } from './check-types.js';
import { within } from '../lib/wait-until.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the outage phase saw. */
export interface OutageLog {
  progress: number;
  seconds: number;
  /** Requests that reached the service while it was down, in all and in its first minute. */
  requests: number;
  firstMinute: number;
  /** ms from the service going down to the outage held in Redis; null when it never was. */
  heldAfterMs: number | null;
  /** ms from the service's return to the outage's end, and to the first write answered 200; null when not within the limit. */
  endedAfterMs: number | null;
  firstWriteAfterMs: number | null;
  /** Streams a breaker paused by the end of the phase (none may be: the service down is not a refusal). */
  paused: string[];
}

/** How long the system may take to go on after the service returns (the probe interval is at most 30 s). */
const RETURN_LIMIT_MS = 90_000;

/**
 * The service answers 503 to everything for `outageSeconds` (longer than the jobs' retries in the full run); then it
 * comes back with the storm's faults. Nobody types `resume`.
 */
export async function outagePhase(o: ChaosOptions, world: ChaosWorld, conn: RedisConnection, progress: number): Promise<OutageLog> {
  const keys = redisKeys(world.prefix);
  const down = Date.now();
  world.sandbox.admin.setFaults([{ kind: 'status-503' }]);
  // The other accounts' orders held back for this fault come now: they must complete while this service is down.
  world.held?.release('outage');
  const heldAfterMs = await within(async () => (await readOutage(conn, keys)).open, o.outageSeconds * 1000);
  await sleep(Math.max(0, down + o.outageSeconds * 1000 - Date.now()));
  const during = world.sandbox.admin.requests().filter((r) => r.at >= down);
  await world.held?.held('outage');
  world.sandbox.admin.setFaults(faultPlan(o.faultScale));
  const up = Date.now();
  const endedAfterMs = await within(async () => !(await readOutage(conn, keys)).open, RETURN_LIMIT_MS);
  const firstWriteAfterMs = await within(
    async () => world.sandbox.admin.requests().some((r) => r.at >= up && r.method === 'POST' && r.status === 200),
    RETURN_LIMIT_MS,
  );
  const paused = (await Promise.all(STREAMS.map((s) => readBreaker(conn, keys, s)))).filter((b) => b.paused).map((b) => b.stream);
  return {
    progress,
    seconds: o.outageSeconds,
    requests: during.length,
    firstMinute: during.filter((r) => r.at < down + 60_000).length,
    heldAfterMs,
    endedAfterMs,
    firstWriteAfterMs,
    paused,
  };
}

/** The phase's rule: held, few requests while down, and on again by itself with no stream paused. */
export function checkOutage(r: OutageLog | undefined): CheckResult {
  const v: string[] = [];
  if (!r) v.push('the outage phase did not run');
  else {
    if (r.heldAfterMs === null) v.push(`the streams never held during ${r.seconds} s of 503s`);
    // A few dozen in the first minute (the jobs in flight, the first probes), at most about 10 a minute after it.
    const allowed = 80 + 10 * Math.max(0, Math.ceil(r.seconds / 60) - 1);
    if (r.requests > allowed) v.push(`${r.requests} requests reached the service while it was down (at most ${allowed})`);
    if (r.endedAfterMs === null) v.push(`the outage did not end within ${RETURN_LIMIT_MS / 1000} s of the service's return`);
    if (r.firstWriteAfterMs === null) v.push(`no write within ${RETURN_LIMIT_MS / 1000} s of the service's return`);
    if (r.paused.length) v.push(`streams paused by the breaker (a person would have to resume): ${r.paused.join(', ')}`);
  }
  return check('the service down longer than the retries: every stream held, few requests, and went on by itself', 1, v);
}

/** What the Redis-full phase saw. */
export interface RedisFullLog {
  progress: number;
  seconds: number;
  /** Warning and error log lines the workers wrote while Redis refused writes (all workers), and the most of one worker. */
  logLines: number;
  mostOfOneWorker: number;
  /** ms from raising maxmemory to the next job completed; null when none within the limit. */
  workAfterMs: number | null;
  /** Whether a write was refused during the phase (the phase really filled Redis). */
  refused: boolean;
  /** When Redis was filled and raised (epoch ms). */
  from: number;
  raisedAt: number;
}

/**
 * What a worker thawed from a freeze says of it, whatever Redis does: its jobs' locks lost (BullMQ) and its writes
 * abandoned at the fence (LEASE_LOST). The storm's freezes end in the window or not, by chance.
 */
const THAWED = ['"code":"LEASE_LOST"', 'could not renew lock for job', 'Missing lock for job'];

/**
 * Lines of a JSON log file written between two times, at warning level or above, but for the records' own failures
 * (a bad record fails alike whatever Redis does; the storm's bad records land in the window or not, by chance) and
 * a thawed worker's lines of its freeze.
 */
function loudLines(file: string, from: number, to: number): number {
  if (!existsSync(file)) return 0;
  let n = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('{') || line.includes('"code":"BAD_RECORD"') || THAWED.some((t) => line.includes(t))) continue;
    const m = /"level":(\d+),"time":(\d+)/.exec(line);
    if (m && Number(m[1]) >= 40 && Number(m[2]) >= from && Number(m[2]) <= to) n++;
  }
  return n;
}

/**
 * Redis's maxmemory is set just under what it uses (noeviction: every write answers OOM, as a managed Redis that
 * filled up does) for `redisFullSeconds`, then raised. Nothing may be lost; the workers may say so a few times, not
 * thousands; work goes on within seconds of the raise.
 */
export async function redisFullPhase(
  o: ChaosOptions,
  world: ChaosWorld,
  conn: RedisConnection,
  orders: Queue,
  logFiles: string[],
  progress: number,
): Promise<RedisFullLog> {
  const before = String((await conn.config('GET', 'maxmemory'))[1] ?? '0');
  const used = Number(/used_memory:(\d+)/.exec(await conn.info('memory'))?.[1] ?? 0);
  const from = Date.now();
  await conn.config('SET', 'maxmemory', String(Math.max(1024 * 1024, used - 64 * 1024)));
  const refused = await conn
    .set(`${world.prefix}:chaos:full-probe`, 'x', 'PX', 1000)
    .then(() => false)
    .catch(() => true);
  await sleep(o.redisFullSeconds * 1000);
  const done = async () => {
    const c = await orders.getJobCounts('completed', 'failed');
    return (c.completed ?? 0) + (c.failed ?? 0);
  };
  await conn.config('SET', 'maxmemory', before);
  const raised = Date.now();
  const doneAtRaise = await done();
  const workAfterMs = await within(async () => (await done()) > doneAtRaise, RETURN_LIMIT_MS);
  const perWorker = logFiles.map((f) => loudLines(f, from, raised));
  return {
    progress,
    seconds: o.redisFullSeconds,
    logLines: perWorker.reduce((a, b) => a + b, 0),
    mostOfOneWorker: Math.max(0, ...perWorker),
    workAfterMs,
    refused,
    from,
    raisedAt: raised,
  };
}

/** The phase's rule: the phase filled Redis, each worker said so in a few lines, and work went on within 10 s of the raise. */
export function checkRedisFull(
  r: RedisFullLog | undefined,
  /**
   * With several accounts: when a kill just before the raise had cut the first account's turn, when it was taken up
   * again (its lease held by the dead process until then, epoch ms): Redis is not what held it, so its 10 s count from there.
   */
  turnCut?: { killedAt: number; resumedAt: number },
): CheckResult {
  const v: string[] = [];
  if (!r) v.push('the Redis-full phase did not run');
  else {
    if (!r.refused) v.push('Redis accepted writes under the lowered maxmemory: the phase filled nothing');
    // At most one line per reason every 30 s, for a handful of reasons (Redis, the pulls, the alerts...), per worker.
    const allowed = 12 * Math.max(1, Math.ceil(r.seconds / 30));
    if (r.mostOfOneWorker > allowed)
      v.push(`a worker wrote ${r.mostOfOneWorker} warning/error lines in ${r.seconds} s of a full Redis (at most ${allowed})`);
    const from = turnCut && turnCut.killedAt <= r.raisedAt && turnCut.resumedAt > r.raisedAt ? turnCut.resumedAt : r.raisedAt;
    const after = r.workAfterMs === null ? null : r.raisedAt + r.workAfterMs - from;
    const why =
      from > r.raisedAt
        ? ` (counted from ${((from - r.raisedAt) / 1000).toFixed(1)} s after the raise: a kill ${((r.raisedAt - turnCut!.killedAt) / 1000).toFixed(1)} s before it had cut the account's turn, its lease held until then)`
        : '';
    if (after === null || after > 10_000)
      v.push(
        `work went on ${after === null ? 'not at all' : `${(after / 1000).toFixed(1)} s`} after Redis accepted writes (at most 10 s)${why}`,
      );
  }
  return check('Redis full (writes refused) then raised: a few log lines, nothing lost, work on within 10 s', 1, v);
}

/** What the secret-rotation phase saw. */
export interface RotateLog {
  progress: number;
  /** Requests answered 401 from the rotation on (the ones in flight with the old key). */
  unauthorized: number;
  /** ms from the files' rewrite to the first request the service took with the new key; null when none within the limit. */
  okAfterMs: number | null;
  /** Streams a breaker paused meanwhile, and those still paused at the end (none may be: nobody types `resume`). */
  pausedOnTheWay: string[];
  pausedAtEnd: string[];
}

/** A file replaced as a secret manager does it: the new content written beside it, then renamed over it. */
function replaceFile(path: string, content: string): void {
  writeFileSync(`${path}.new`, content, { mode: 0o600 });
  renameSync(`${path}.new`, path);
}

/**
 * The account's credentials are rotated while the workers sync: the service takes only the new key and secret, and
 * half a second later the files the workers read them from are rewritten (trailing newline, as secret managers write
 * them). Nobody restarts a worker or types `resume`.
 */
export async function rotateSecretPhase(world: ChaosWorld, conn: RedisConnection, progress: number): Promise<RotateLog> {
  const files = world.secretFiles!;
  const keys = redisKeys(world.prefix);
  const next = { apiKey: `chaos-key-${randomBytes(12).toString('hex')}`, apiSecret: `chaos-secret-${randomBytes(12).toString('hex')}` };
  world.rotated = next;
  const t = Date.now();
  world.sandbox.admin.setCredentials({ key: next.apiKey, secret: next.apiSecret });
  await sleep(500);
  replaceFile(files.key, `${next.apiKey}\n`);
  replaceFile(files.secret, `${next.apiSecret}\n`);
  const rewritten = Date.now();
  const paused = new Set<string>();
  // Any answer but a 401 (a 200, a 404 of a read, a 429) is a request the service took with the new key.
  const okAfterMs = await within(async () => {
    for (const b of await Promise.all(STREAMS.map((s) => readBreaker(conn, keys, s)))) if (b.paused) paused.add(b.stream);
    return world.sandbox.admin.requests().some((r) => r.at >= rewritten && r.status !== undefined && r.status !== 401);
  }, RETURN_LIMIT_MS);
  // A pause for 401 ends by itself once the files changed (src/app/unauthorized-resume.ts): give it the time to.
  const settled = await within(
    async () => (await Promise.all(STREAMS.map((s) => readBreaker(conn, keys, s)))).every((b) => !b.paused),
    RETURN_LIMIT_MS,
  );
  const pausedAtEnd =
    settled === null
      ? (await Promise.all(STREAMS.map((s) => readBreaker(conn, keys, s)))).filter((b) => b.paused).map((b) => b.stream)
      : [];
  const unauthorized = world.sandbox.admin.requests().filter((r) => r.at >= t && r.status === 401).length;
  return { progress, unauthorized, okAfterMs, pausedOnTheWay: [...paused], pausedAtEnd };
}

/** The phase's rule: writes go on with the new credentials, and no stream is left paused. */
export function checkRotate(r: RotateLog | undefined): CheckResult {
  const v: string[] = [];
  if (!r) v.push('the secret-rotation phase did not run');
  else {
    if (r.okAfterMs === null) v.push(`no request taken with the new key within ${RETURN_LIMIT_MS / 1000} s of the files' rewrite`);
    if (r.pausedAtEnd.length) v.push(`streams left paused after the rotation (a person would have to resume): ${r.pausedAtEnd.join(', ')}`);
  }
  return check('the credentials rotated through their files: requests go on with the new ones, no restart, no resume', 1, v);
}
