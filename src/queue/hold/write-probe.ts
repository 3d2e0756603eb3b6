/**
 * The hold for `redis-refused` (hold.ts): whether Redis takes writes, seen by each process (Redis is what refuses, so
 * the state cannot be kept there). A full Redis (maxmemory reached under noeviction: OOM) or a replica (READONLY)
 * still answers PING, so the only test is a write: a short-lived key under the prefix, set every few seconds; the
 * probe that passes releases the hold.
 */
import type { Logger } from '../../log/logger.js';
import { messageOf } from '../../errors/message-of.js';
import { logRepeated } from '../../log/log-throttle.js';
import { findRedisFailure } from '../../redis/errors.js';
import type { RedisConnection } from '../../redis/connection.js';

/** Life of the probe key, ms: it never outlives a few probes. */
const PROBE_TTL_MS = 10_000;

export interface WriteState {
  /** Redis refused the last probe write, or did not answer it. */
  refusing: boolean;
  /** Since when (epoch ms) it refuses. */
  since?: number;
  /** Redis's answer (`OOM command not allowed when used memory > 'maxmemory'.`), or why no answer came. */
  why?: string;
  /** What to do about it. */
  hint?: string;
  /** Redis answered the write with a refusal (OOM, READONLY), rather than not at all (down, unreachable). */
  answered?: boolean;
  /** When the last probe ended (epoch ms). */
  checkedAt?: number;
}

export interface RedisWriteWatchOptions {
  redis: RedisConnection;
  /** The probe key, under the prefix (`{prefix}:write-probe`). */
  key: string;
  logger: Logger;
  /** Probe every this many ms. Default 2 000. */
  everyMs?: number;
  /** A probe not answered within this is a refusal ("no answer"). Default 2 000. */
  timeoutMs?: number;
}

export interface RedisWriteWatch {
  state(): WriteState;
  /** Called after every probe, refusing or not, with the state before it. */
  onProbe(fn: (now: WriteState, before: WriteState) => void): void;
  /** Probes now (also what the timer does); resolves with the new state. */
  probe(): Promise<WriteState>;
  stop(): void;
}

/** Probes Redis with a write every `everyMs`, and logs when it starts and stops refusing (once each, not per probe). */
export function watchRedisWrites(o: RedisWriteWatchOptions): RedisWriteWatch {
  const timeoutMs = o.timeoutMs ?? 2_000;
  let state: WriteState = { refusing: false };
  const listeners: Array<(now: WriteState, before: WriteState) => void> = [];
  let running: Promise<WriteState> | undefined;

  const once = async (): Promise<WriteState> => {
    let timer: NodeJS.Timeout | undefined;
    let failure: { why: string; hint?: string; answered: boolean } | undefined;
    try {
      await Promise.race([
        o.redis.set(o.key, String(Date.now()), 'PX', PROBE_TTL_MS),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
    } catch (err) {
      const found = findRedisFailure(err);
      failure = { why: messageOf(err).replace(/\.$/, ''), hint: found?.hint, answered: found?.replied ?? false };
    } finally {
      clearTimeout(timer);
    }
    const now = Date.now();
    const before = state;
    state = failure
      ? { refusing: true, since: before.refusing ? before.since : now, ...failure, checkedAt: now }
      : { refusing: false, checkedAt: now };
    // Once per 30 s: a Redis at the edge of its maxmemory takes and refuses writes by turns.
    if (state.refusing && !before.refusing)
      logRepeated(
        o.logger,
        'error',
        `redis-writes:${state.answered ? 'refused' : 'unanswered'}`,
        { why: state.why, hint: state.hint },
        `Redis ${state.answered ? 'refuses writes' : 'does not answer writes'}: ` +
          `${state.why}${state.hint ? `. ${state.hint.replace(/\.$/, '')}` : ''}; ` +
          'jobs and pulls wait (nothing is lost) and go on by themselves once it takes writes again',
      );
    if (!state.refusing && before.refusing)
      o.logger.info({ refusedSeconds: Math.round((now - before.since!) / 1000) }, 'Redis takes writes again; jobs and pulls go on');
    for (const fn of listeners) fn(state, before);
    return state;
  };

  const probe = () => (running ??= once().finally(() => (running = undefined)));
  const timer = setInterval(() => void probe(), o.everyMs ?? 2_000);
  timer.unref();
  return {
    state: () => state,
    onProbe: (fn) => void listeners.push(fn),
    probe,
    stop: () => clearInterval(timer),
  };
}
