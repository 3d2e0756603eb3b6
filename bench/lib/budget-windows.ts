/**
 * Counting against the sandbox's budget windows (src/sandbox/budget-windows.ts: fixed windows aligned on the epoch).
 * A bound of budget / 4 orders a minute holds per window: a count over a time that is not whole windows can be over
 * it (the end of one window and the start of the next both spent), or under it (a window's part whose POSTs went
 * before the count began). So the benches count over whole windows: from a window's start to a later one's.
 */
import type { Queue } from 'bullmq';
import type { Cluster, Redis } from 'ioredis';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { percentile } from './push-signing.js';

/** The sandboxes' POST budget window of the benches (ms). */
export const BUDGET_WINDOW_MS = 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The start of the first whole window at or after `at` (epoch ms). */
export function windowStartAfter(at: number, windowMs = BUDGET_WINDOW_MS): number {
  return Math.ceil(at / windowMs) * windowMs;
}

/** Sleeps until the next window starts (now, when one starts this ms); answers its start. */
export async function untilWindowStart(windowMs = BUDGET_WINDOW_MS): Promise<number> {
  const start = windowStartAfter(Date.now(), windowMs);
  await sleep(Math.max(0, start - Date.now()));
  return start;
}

/** Whole windows of `seconds` (rounded up: a bench asks for 120 s, two windows of a minute). */
export const windowsOf = (seconds: number, windowMs = BUDGET_WINDOW_MS) => Math.max(1, Math.ceil((seconds * 1000) / windowMs));

/** Per window from `start`: the POSTs the sandbox took into its budget (its request log: a 429 spent nothing). */
export function postsSpentPerWindow(sandbox: Sandbox, start: number, windows: number, windowMs = BUDGET_WINDOW_MS): number[] {
  const out = new Array<number>(windows).fill(0);
  for (const r of sandbox.admin.requests()) {
    if (r.method !== 'POST' || r.spentAt === undefined) continue;
    const w = Math.floor((r.spentAt - start) / windowMs);
    if (w >= 0 && w < windows) out[w]!++;
  }
  return out;
}

/** Per window from `start`: the jobs of the queue completed in it (BullMQ's completed set is scored by finishedOn). */
export async function completedPerWindow(
  redis: Redis | Cluster,
  queue: Queue,
  start: number,
  windows: number,
  windowMs = BUDGET_WINDOW_MS,
): Promise<number[]> {
  const key = queue.keys.completed!;
  const out: number[] = [];
  for (let w = 0; w < windows; w++) out.push(await redis.zcount(key, start + w * windowMs, `(${start + (w + 1) * windowMs}`));
  return out;
}

/** One account over whole windows: orders completed a minute, and the POSTs its sandbox took a minute / 4. */
export interface WindowedPace {
  /** Orders completed in each window. */
  completed: number[];
  /** POSTs the sandbox took into its budget in each window. */
  posts: number[];
  /** Orders completed a minute over the windows. */
  ordersPerMinute: number;
  /** POSTs taken a minute / 4 (an order is 4 POSTs) over the windows. */
  postsPerMinuteOver4: number;
}

/** An account's pace over `windows` whole windows from `start`; waits until the last has ended (and a second more). */
export async function windowedPace(
  redis: Redis | Cluster,
  sandbox: Sandbox,
  queue: Queue,
  start: number,
  windows: number,
  windowMs = BUDGET_WINDOW_MS,
): Promise<WindowedPace> {
  await sleep(Math.max(0, start + windows * windowMs + 1000 - Date.now()));
  const completed = await completedPerWindow(redis, queue, start, windows, windowMs);
  const posts = postsSpentPerWindow(sandbox, start, windows, windowMs);
  const minutes = (windows * windowMs) / 60_000;
  const sum = (xs: number[]) => xs.reduce((t, x) => t + x, 0);
  return { completed, posts, ordersPerMinute: sum(completed) / minutes, postsPerMinuteOver4: sum(posts) / 4 / minutes };
}

/** Accounts over the same whole windows, against a bound of orders a minute (budget / 4). */
export interface PaceSummary {
  /** POSTs taken a minute / 4, lowest and median: the budget each account spent, in orders. */
  lowest: number;
  median: number;
  /** Accounts whose POSTs taken a minute / 4 reached 95% of the bound. */
  atLeast95: number;
  /** Orders completed a minute, lowest and median. */
  completedLowest: number;
  completedMedian: number;
  /** All the accounts together: orders completed, and POSTs taken / 4 (they differ by the orders in flight at the two ends). */
  completedTotal: number;
  postsTotalOver4: number;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

export function summarizePaces(paces: readonly WindowedPace[], bound: number): PaceSummary {
  const posts = paces.map((p) => p.postsPerMinuteOver4).sort((a, b) => a - b);
  const done = paces.map((p) => p.ordersPerMinute).sort((a, b) => a - b);
  const sum = (xs: number[]) => xs.reduce((t, x) => t + x, 0);
  return {
    lowest: round1(posts[0] ?? 0),
    median: round1(percentile(posts, 50)),
    atLeast95: posts.filter((n) => n >= 0.95 * bound).length,
    completedLowest: round1(done[0] ?? 0),
    completedMedian: round1(percentile(done, 50)),
    completedTotal: sum(paces.map((p) => sum(p.completed))),
    postsTotalOver4: round1(sum(paces.map((p) => sum(p.posts))) / 4),
  };
}

/** Each account's orders completed and POSTs taken per window, for the log ("57/63 236/235; ..."). */
export const paceLine = (paces: readonly WindowedPace[]) => paces.map((p) => `${p.completed.join('/')} ${p.posts.join('/')}`).join('; ');
