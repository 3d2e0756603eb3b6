/**
 * A partial outage (issue 45): one call of the service answers 503 for a while, beside the storm's faults, while every
 * other call answers. Only the jobs whose next step is that call may wait; the hold must open, send few requests to the
 * failing call, never hold the whole service for it, and end by itself once the call works again. One call at a time,
 * chosen by the seed from CALL_FAULTS.
 */
import type { RedisConnection } from '../../src/redis/connection.js';
import { redisKeys } from '../../src/redis/connection.js';
import { readCallHolds } from '../../src/queue/hold/call-hold.js';
import { readBreaker } from '../../src/queue/hold/refusal-state.js';
import { readOutage } from '../../src/queue/hold/outage-state.js';
import type { FaultRule } from '../../src/sandbox/sandbox-options.js';
import { STREAMS } from '../../jobs/kinds.js';
import { faultPlan } from './chaos-env.js';
import type { ChaosOptions } from './chaos-options.js';
import type { ChaosWorld } from './chaos-world.js';
import { check, type CheckResult } from './check-types.js';
import { within } from '../lib/wait-until.js';

/** The calls a partial outage takes down, each with the sandbox's fault rule for it. */
export const CALL_FAULTS: ReadonlyArray<{ call: string; rule: FaultRule; path: RegExp }> = [
  { call: 'shipment-create', rule: { kind: 'status-503', method: 'POST', path: '/api/shipment$' }, path: /\/api\/shipment$/ },
  { call: 'variance', rule: { kind: 'status-503', method: 'POST', path: '/api/inventoryvariance$' }, path: /\/api\/inventoryvariance$/ },
  {
    call: 'order-actions',
    rule: { kind: 'status-503', method: 'POST', path: '/api/order/[^/]+/[^/]+$' },
    path: /\/api\/order\/[^/]+\/[^/]+$/,
  },
  { call: 'shipment-update', rule: { kind: 'status-503', method: 'POST', path: '/api/shipment/[^/]+' }, path: /\/api\/shipment\/[^/]+/ },
  { call: 'product-update', rule: { kind: 'status-503', method: 'POST', path: '/api/product/[^/]+$' }, path: /\/api\/product\/[^/]+$/ },
];

/** The i-th call a run takes down: from the seed, without a draw (the rest of the seed's plan stays as it was). */
export const callDownOf = (o: Pick<ChaosOptions, 'seed'>, i: number) => CALL_FAULTS[(o.seed + i) % CALL_FAULTS.length]!;

/** What one partial outage saw. */
export interface CallDownLog {
  progress: number;
  call: string;
  seconds: number;
  /** Requests of that call that reached the service while it failed. */
  requests: number;
  /** ms from the call going down to its hold; null when it was never held (no job needed it meanwhile). */
  heldAfterMs: number | null;
  /** ms from the call's return to its release; null when it was held and not released within the limit. */
  releasedAfterMs: number | null;
  /** Whether the account-wide outage opened meanwhile (the storm's own faults may open one briefly). */
  outageOpened: boolean;
  /** Streams a breaker paused by the end (none may be). */
  paused: string[];
}

const RETURN_LIMIT_MS = 90_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function callDownPhase(
  o: ChaosOptions,
  world: ChaosWorld,
  conn: RedisConnection,
  progress: number,
  index: number,
): Promise<CallDownLog> {
  const keys = redisKeys(world.prefix);
  const { call, rule, path } = callDownOf(o, index);
  const held = async () => (await readCallHolds(conn, keys)).find((c) => c.call === call)?.held === true;
  const down = Date.now();
  world.sandbox.admin.setFaults([rule, ...faultPlan(o.faultScale)]);
  let outageOpened = false;
  const heldAfterMs = await within(async () => {
    outageOpened ||= (await readOutage(conn, keys)).open;
    return held();
  }, o.callDownSeconds * 1000);
  while (Date.now() < down + o.callDownSeconds * 1000) {
    outageOpened ||= (await readOutage(conn, keys)).open;
    await sleep(500);
  }
  const up = Date.now();
  const requests = world.sandbox.admin
    .requests()
    .filter((r) => r.at >= down && r.at < up && r.method === 'POST' && path.test(r.path)).length;
  world.sandbox.admin.setFaults(faultPlan(o.faultScale));
  const releasedAfterMs = await within(async () => !(await held()), RETURN_LIMIT_MS);
  const paused = (await Promise.all(STREAMS.map((s) => readBreaker(conn, keys, s)))).filter((b) => b.paused).map((b) => b.stream);
  return { progress, call, seconds: o.callDownSeconds, requests, heldAfterMs, releasedAfterMs, outageOpened, paused };
}

/** The rule: a call that was needed is held, few requests reach it, it ends by itself, and no stream is paused. */
export function checkCallDowns(o: ChaosOptions, logs: readonly CallDownLog[]): CheckResult {
  const v: string[] = [];
  if (logs.length < o.callDowns) v.push(`${o.callDowns - logs.length} of ${o.callDowns} partial outages did not run`);
  // The jobs in flight when it went down (each process's), the 3 that held it, then about one trial every 30 s.
  const allowed = o.workers * o.concurrency + 3 + 2 * Math.ceil(o.callDownSeconds / 30) + 6;
  for (const r of logs) {
    const what = `${r.call} down ${r.seconds} s @${Math.round(r.progress * 100)}%`;
    if (r.requests >= 3 && r.heldAfterMs === null) v.push(`${what}: ${r.requests} requests met it, but it was never held`);
    if (r.requests > allowed) v.push(`${what}: ${r.requests} requests reached it while it failed (at most ${allowed})`);
    if (r.releasedAfterMs === null) v.push(`${what}: still held ${RETURN_LIMIT_MS / 1000} s after it answered again`);
    if (r.paused.length) v.push(`${what}: streams paused by the breaker: ${r.paused.join(', ')}`);
  }
  return check('one call of the service down at a time: only its jobs held, few requests, and on again by itself', logs.length, v);
}
