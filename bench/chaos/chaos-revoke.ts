import { spawn } from 'node:child_process';
import type { RedisConnection } from '../../src/redis/connection.js';
import { redisKeys } from '../../src/redis/connection.js';
import { readBreaker } from '../../src/queue/hold/refusal-state.js';
import { STREAMS } from '../../jobs/kinds.js';
import { cliCommand } from '../lib/cli-process.js';
import { faultPlan } from './chaos-env.js';
import type { ChaosOptions } from './chaos-options.js';
import type { ChaosWorld } from './chaos-world.js';
import { check, type CheckResult } from './check-types.js';

/** What the revoked-key phase saw: how soon the orders stream paused, and how the operator's `resume` went. */
export interface RevokeLog {
  progress: number;
  /** ms from the revocation to the orders stream's pause; null when it did not pause within the limit. */
  pausedAfterMs: number | null;
  /** Requests answered 401 while the key was revoked. */
  refused: number;
  /** Streams paused when the key came back. */
  paused: string[];
  /** Exit of `inventory-sync resume`, and what it printed. */
  resumeCode: number | string;
  resumeOutput: string;
}

/** How long the orders stream may take to pause once the key is revoked. */
const PAUSE_LIMIT_MS = 60_000;
/** How long the key stays revoked after the pause (an operator rotating it). */
const REVOKED_AFTER_PAUSE_MS = 3_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The API key is revoked (every request answers 401) while the workers sync: the orders stream must pause within
 * BREAKER_THRESHOLD refusals (plus jobs in flight) without failing an order; the key comes back, and the real
 * `inventory-sync resume` alone (every stream) must set them going again. The run's checks then prove that no order was
 * lost or doubled by it.
 */
export async function revokeKeyPhase(
  o: ChaosOptions,
  world: ChaosWorld,
  conn: RedisConnection,
  root: string,
  progress: number,
): Promise<RevokeLog> {
  const keys = redisKeys(world.prefix);
  const before = world.sandbox.admin.counters().faults['status-401'] ?? 0;
  const t = Date.now();
  world.sandbox.admin.setFaults([{ kind: 'status-401' }, ...faultPlan(o.faultScale)]);
  // The other accounts' orders held back for this fault come now: they must complete while this key is revoked.
  world.held?.release('revoked key');
  let pausedAfterMs: number | null = null;
  while (Date.now() - t < PAUSE_LIMIT_MS) {
    if ((await readBreaker(conn, keys, 'orders').catch(() => undefined))?.paused) {
      pausedAfterMs = Date.now() - t;
      break;
    }
    await sleep(100);
  }
  await sleep(REVOKED_AFTER_PAUSE_MS);
  // The operator takes a while to rotate the key: long enough for the other accounts' released orders (at most a minute).
  await world.held?.waitDone('revoked key', PAUSE_LIMIT_MS);
  await world.held?.held('revoked key');
  const paused = (await Promise.all(STREAMS.map((s) => readBreaker(conn, keys, s)))).filter((b) => b.paused).map((b) => b.stream);
  world.sandbox.admin.setFaults(faultPlan(o.faultScale));
  const refused = (world.sandbox.admin.counters().faults['status-401'] ?? 0) - before;
  const { code, output } = await resume(o, world, root);
  return { progress, pausedAfterMs, refused, paused, resumeCode: code, resumeOutput: output };
}

/** `inventory-sync resume` (every stream), as an operator runs it. */
async function resume(o: ChaosOptions, world: ChaosWorld, root: string): Promise<{ code: number | string; output: string }> {
  const { command, args } = cliCommand(root, o.dist);
  const child = spawn(command, [...args, ...world.accountArgs(), 'resume'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...world.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | string>((r) => {
    child.once('close', (c, signal) => r(c ?? signal ?? -1));
    child.once('error', () => r(-1));
  });
  clearTimeout(timer);
  return { code, output: output.trim() };
}

/**
 * The phase's own rule: the orders stream paused while the key was revoked, and `resume` exited 0 (the drain and the
 * exactly-once checks then prove that the resume alone finished every order, none failed for good).
 */
export function checkRevoke(r: RevokeLog | undefined): CheckResult {
  const v: string[] = [];
  if (!r) v.push('the revoked-key phase did not run');
  else {
    if (r.pausedAfterMs === null)
      v.push(`the orders stream did not pause within ${PAUSE_LIMIT_MS / 1000} s of the key being revoked (${r.refused} x 401)`);
    if (r.resumeCode !== 0) v.push(`inventory-sync resume exited ${r.resumeCode}: ${r.resumeOutput.slice(0, 300)}`);
  }
  return check('a revoked API key pauses the orders stream (no order failed), and `resume` alone brings it back', 1, v);
}
