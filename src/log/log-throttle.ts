/**
 * Repeated errors logged once per reason per interval, with the count since the last line: a Redis that refuses
 * writes makes BullMQ's workers emit thousands of errors a second, and a log is read by a person.
 */
import type { Logger } from 'pino';
import { replyCode } from '../errors/reply-code.js';

/** Default interval between two lines of one reason, in ms. */
export const REPEAT_INTERVAL_MS = 30_000;

export interface LogThrottleOptions {
  /** At most one line per reason in this many ms. Default REPEAT_INTERVAL_MS. */
  intervalMs?: number;
  /** The clock. Default Date.now. */
  now?: () => number;
}

/** Whether to write this occurrence, and how many were left unwritten since the last line of its reason. */
export interface Verdict {
  write: boolean;
  repeats: number;
}

/** Counts occurrences per reason and lets one through per interval. */
export interface LogThrottle {
  /**
   * One occurrence. When it is held back and `flush` is given, `flush` is called with the count at the end of the
   * interval, unless an occurrence is written first: a burst that stops is still counted in a line.
   */
  note(reason: string, flush?: (repeats: number) => void): Verdict;
}

interface ReasonState {
  lastAt: number;
  repeats: number;
  flush?: (repeats: number) => void;
  timer?: NodeJS.Timeout;
}

export function createLogThrottle(o: LogThrottleOptions = {}): LogThrottle {
  const intervalMs = o.intervalMs ?? REPEAT_INTERVAL_MS;
  const now = o.now ?? Date.now;
  const seen = new Map<string, ReasonState>();
  const endOfInterval = (s: ReasonState) => {
    s.timer = undefined;
    if (!s.repeats || !s.flush) return;
    const n = s.repeats;
    s.repeats = 0;
    s.lastAt = now();
    s.flush(n);
  };
  return {
    note(reason, flush) {
      const t = now();
      const s = seen.get(reason);
      if (s && t - s.lastAt < intervalMs) {
        s.repeats++;
        if (flush) {
          s.flush = flush;
          s.timer ??= setTimeout(() => endOfInterval(s), s.lastAt + intervalMs - t);
          s.timer.unref();
        }
        return { write: false, repeats: s.repeats };
      }
      const repeats = s?.repeats ?? 0;
      clearTimeout(s?.timer);
      seen.set(reason, { lastAt: t, repeats: 0 });
      return { write: true, repeats };
    },
  };
}

/**
 * The reason an error is counted under: a Redis reply's code (`OOM`, `READONLY`, `NOAUTH`), a stable `code`
 * (`ECONNREFUSED`, a ServiceError's `UNAVAILABLE`), else its class; never its whole text, which carries ids and times.
 */
export function reasonOf(err: unknown): string {
  if (!(err instanceof Error)) return typeof err;
  const code = (err as { code?: unknown }).code;
  // A transaction Redis discarded (EXECABORT) is counted under what refused its commands (OOM while full, READONLY).
  const previous = (err as { previousErrors?: unknown[] }).previousErrors?.[0];
  if (err.name === 'ReplyError' && replyCode(err) === 'EXECABORT' && previous instanceof Error) return reasonOf(previous);
  if (err.name === 'ReplyError') return replyCode(err) ?? 'ReplyError';
  if (typeof code === 'string' && code) return code;
  // ioredis's plain errors (Connection is closed., Cluster is disconnected.) have no code: their first words are stable.
  if (err.constructor === Error)
    return (
      err.message
        .split(/[.:;(]/)[0]!
        .trim()
        .slice(0, 60) || 'Error'
    );
  return err.name;
}

/** One throttle per logger family: children share their root's (pino makes a child with Object.create of its parent). */
const THROTTLE = Symbol('log throttle');
type WithThrottle = Logger & { [THROTTLE]?: LogThrottle };

/** Gives a logger (and the children made from it afterwards) a throttle of its own, e.g. with a short interval in tests. */
export function attachLogThrottle(logger: Logger, throttle: LogThrottle = createLogThrottle()): Logger {
  (logger as WithThrottle)[THROTTLE] = throttle;
  return logger;
}

function throttleOf(logger: Logger): LogThrottle {
  const l = logger as WithThrottle;
  return (l[THROTTLE] ??= createLogThrottle());
}

type Level = 'error' | 'warn' | 'info' | 'debug';

/**
 * Logs `msg` at most once per `reason` per interval: the first at once, those held back counted in one line at the end
 * of the interval (or with the next occurrence after it), with `repeats` and "(N more since the last line)". Answers
 * whether it wrote now.
 */
export function logRepeated(logger: Logger, level: Level, reason: string, fields: Record<string, unknown>, msg: string): boolean {
  const write = (repeats: number) => {
    const more = repeats ? ` (${repeats} more since the last line)` : '';
    logger[level]({ ...fields, reason, ...(repeats ? { repeats } : {}) }, `${msg}${more}`);
  };
  const v = throttleOf(logger).note(reason, write);
  if (v.write) write(v.repeats);
  return v.write;
}
