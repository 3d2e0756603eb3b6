import { randomBytes } from 'node:crypto';
import type { RedisConnection as Redis } from '../redis/connection.js';

/**
 * An interval pull without BullMQ: a timer at each slot of `everyMs` and one `SET NX PX` to claim the slot. Every
 * process of an account computes the same slots (their phase comes from the claim key, so accounts spread over the
 * interval rather than all polling at once), the first to claim a slot runs it, and the claim expires just before the
 * next slot: several processes sharing an account pull once per interval between them, with nothing but Redis between
 * them. About 1 command a slot per process and the pull's own, where a BullMQ job scheduler took ~75.
 */

export interface PullTickerOptions {
  redis: Redis;
  /** The claim's key (the account's, so that it shares the account's hash tag on a cluster). */
  claimKey: string;
  /** The interval, in ms. */
  everyMs: number;
  /** Runs a claimed slot; `nextRunAt` is the next slot's time. Its errors are its own to log (the ticker goes on). */
  run(nextRunAt: Date): Promise<void>;
  /** Said when claiming fails (Redis away or refusing writes); the next slot tries again. */
  onClaimError(err: unknown): void;
  /** The clock. Default Date.now. */
  now?: () => number;
}

export interface PullTicker {
  /** The next slot's time. */
  nextRunAt(): Date;
  /** Stops the timer; a running pull goes on (`idle` says when it ends). */
  stop(): void;
  /** Resolves once no claimed run is in progress. */
  idle(): Promise<void>;
}

/** A slot's start is delayed by up to this much at random, so that the processes of an account do not all ask at once. */
const maxJitterMs = (everyMs: number) => Math.min(everyMs * 0.05, 100);
/** A claim ends this long before the next slot, so that a slot's claimer (jitter and latency included) finds it gone. */
const marginMs = (everyMs: number) => Math.min(everyMs * 0.2, maxJitterMs(everyMs) + 200);

/** Where in the interval a key's slots start: the same for every process of the account, spread over accounts. */
function slotPhase(key: string, everyMs: number): number {
  let h = 0x811c9dc5; // FNV-1a
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return h % everyMs;
}

/** The start of the first slot after `now`. */
function nextSlot(now: number, everyMs: number, phase: number): number {
  const into = (((now - phase) % everyMs) + everyMs) % everyMs;
  return now - into + everyMs;
}

/** When a ticker of this claim key and interval next runs. */
export function nextTickAt(claimKey: string, everyMs: number, now = Date.now()): Date {
  const every = Math.max(1, Math.round(everyMs));
  return new Date(nextSlot(now, every, slotPhase(claimKey, every)));
}

/** Ticks from now on: one try at once (a start pulls at once unless another process ran this slot), then each slot. */
export function startPullTicker(o: PullTickerOptions): PullTicker {
  const now = o.now ?? Date.now;
  const everyMs = Math.max(1, Math.round(o.everyMs));
  const phase = slotPhase(o.claimKey, everyMs);
  const token = randomBytes(8).toString('hex');
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> | undefined;

  const schedule = () => {
    if (stopped) return;
    const t = now();
    const delay = nextSlot(t, everyMs, phase) - t + Math.random() * maxJitterMs(everyMs);
    timer = setTimeout(tick, delay);
    timer.unref();
  };

  const claim = async (): Promise<Date | undefined> => {
    const t = now();
    const next = nextSlot(t, everyMs, phase);
    const life = Math.floor(next - t - marginMs(everyMs));
    if (life < 1) return undefined; // the next slot is too near: it runs instead
    const won = await o.redis.set(o.claimKey, token, 'PX', life, 'NX');
    return won === 'OK' ? new Date(next) : undefined;
  };

  function tick() {
    schedule();
    // A pull still running (slower than the interval) skips the slot; the pull lock would refuse it anyway.
    if (running || stopped) return;
    running = claim()
      .then((next) => (next && !stopped ? o.run(next) : undefined))
      .catch((err: unknown) => o.onClaimError(err))
      .finally(() => (running = undefined));
  }

  // The first try at once, not on the first slot: a worker that starts pulls at once, as a BullMQ scheduler did.
  timer = setTimeout(tick, Math.random() * maxJitterMs(everyMs));
  timer.unref();
  return {
    nextRunAt: () => new Date(nextSlot(now(), everyMs, phase)),
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
    async idle() {
      while (running) await running;
    },
  };
}
