import { defaults } from '../../../config/defaults.js';
import { callScopeLabel, CALL_SCOPES } from '../../client/call-scope.js';
import type { Logger } from '../../log/logger.js';
import { logRepeated } from '../../log/log-throttle.js';
import { messageOf } from '../../errors/message-of.js';
import type { RedisConnection as Redis, RedisKeys } from '../../redis/connection.js';
import { runScript } from '../../redis/scripts.js';
import { findRedisFailure } from '../../redis/errors.js';
import { fieldsOf, type CallFields } from './call-hold.js';
import { CALL_ANSWERED, CALL_FAILED, CALL_GATE, CALL_GIVE_BACK } from './call-hold-scripts.js';
import { clipReason } from './hold.js';

/** The timings of every call's hold (call-hold.ts). */
export interface CallHoldSettings {
  /** Service-down answers of one call in a row, across every process, that hold it. Default defaults.outageThreshold. */
  threshold?: number;
  /** Delay before a held call's first trial, in ms; each failed trial doubles it. Default defaults.outageProbeFirstMs. */
  firstTrialMs?: number;
  /** Longest delay between two trials, in ms (OUTAGE_PROBE_MAX_SECONDS). Default defaults.outageProbeMaxMs. */
  maxTrialMs?: number;
  /** How long a trial that was let through keeps the others back before another may go (its answer lost), in ms. */
  trialLifeMs?: number;
  /** How old this process's view of the holds may be when a request asks it, in ms. Default defaults.callHoldViewMs. */
  viewMs?: number;
}

export interface CallHoldsOptions extends CallHoldSettings {
  redis: Redis;
  keys: RedisKeys;
  logger: Logger;
}

/** What a request of a call may do now. */
export type Gate = { state: 'open' } | { state: 'trial'; token: string } | { state: 'held'; nextTrialAt: number };

/** What this process knows of a call: held or not, failures in a row, its next trial. */
interface Seen {
  held: boolean;
  failures: number;
  next: number;
  since: number;
  reason: string;
}

const seenOf = (f: CallFields): Seen => ({
  held: f.state === 'held',
  failures: Number(f.failures ?? 0),
  next: Number(f.next ?? 0),
  since: Number(f.since ?? 0),
  reason: f.reason ?? '',
});

/**
 * This process's side of every call's hold: a view of the hash (read at most every `viewMs` on the way of a request,
 * and by each look of the watch), so that a call that runs costs no Redis command per request, and the transitions
 * run as the scripts of call-hold-scripts.ts. Its errors never change a request's result: the hold is best effort.
 */
export class CallHolds {
  threshold: number;
  firstTrialMs: number;
  maxTrialMs: number;
  private trialLifeMs: number;
  private readonly viewMs: number;
  /** Told when this process held a call or released one (the watch looks at once: a probe, the waiting jobs). */
  private readonly listeners: Array<(call: string, change: 'held' | 'released') => void> = [];
  private seen = new Map<string, Seen>();
  private seenAt = 0;
  /** Calls seen held, then running (released here or elsewhere), whose waiting jobs the next look wakes. */
  private readonly released = new Set<string>();
  private loading: Promise<void> | undefined;

  constructor(private readonly o: CallHoldsOptions) {
    this.threshold = o.threshold ?? defaults.outageThreshold;
    this.firstTrialMs = o.firstTrialMs ?? defaults.outageProbeFirstMs;
    this.maxTrialMs = o.maxTrialMs ?? defaults.outageProbeMaxMs;
    this.trialLifeMs = o.trialLifeMs ?? defaults.callTrialLifeMs;
    this.viewMs = o.viewMs ?? defaults.callHoldViewMs;
  }

  /** Timings other than the configuration's (a worker pool's `outage` options: tests, benches). */
  tune(s: Omit<CallHoldSettings, 'viewMs'>): void {
    this.threshold = s.threshold ?? this.threshold;
    this.firstTrialMs = s.firstTrialMs ?? this.firstTrialMs;
    this.maxTrialMs = s.maxTrialMs ?? this.maxTrialMs;
    this.trialLifeMs = s.trialLifeMs ?? this.trialLifeMs;
  }

  /** Calls `fn` whenever this process holds a call or releases one. */
  listen(fn: (call: string, change: 'held' | 'released') => void): void {
    this.listeners.push(fn);
  }

  /** Takes the hash as read (by the watch's look or a request's refresh). */
  see(hash: Readonly<Record<string, string>>, at = Date.now()): void {
    for (const call of CALL_SCOPES) this.mark(call, seenOf(fieldsOf(hash, call)));
    this.seenAt = at;
  }

  /** The calls released since the last time this was asked (the look wakes their waiting jobs). */
  takeReleased(): string[] {
    const calls = [...this.released];
    this.released.clear();
    return calls;
  }

  /** The calls held in this process's view. */
  held(): string[] {
    return [...this.seen].filter(([, s]) => s.held).map(([call]) => call);
  }

  /** Whether a call is held in this process's view, since when and why. */
  heldAs(call: string): { since: number; reason: string; next: number } | undefined {
    const s = this.seen.get(call);
    return s?.held ? { since: s.since, reason: s.reason, next: s.next } : undefined;
  }

  private async fresh(): Promise<void> {
    if (Date.now() - this.seenAt < this.viewMs) return;
    this.loading ??= this.o.redis
      .hgetall(this.o.keys.callHolds())
      .then((hash) => void this.see(hash))
      .finally(() => (this.loading = undefined));
    await this.loading;
  }

  /** Whether `call` is held in Redis now (one HGET; a job about to wait for its release asks). */
  async stillHeld(call: string): Promise<boolean> {
    return (await this.o.redis.hget(this.o.keys.callHolds(), `${call}:state`)) === 'held';
  }

  /** Whether a request of `call` may go: yes while it runs; while held, only as the trial when one is due. */
  async gate(call: string, token: string): Promise<Gate> {
    await this.fresh();
    if (!this.seen.get(call)?.held) return { state: 'open' };
    const [state, next] = (await runScript(this.o.redis, CALL_GATE, [
      1,
      this.o.keys.callHolds(),
      call,
      Date.now(),
      token,
      this.trialLifeMs,
    ])) as [string, number];
    if (state === 'open') {
      this.mark(call, { held: false, failures: 0 });
      return { state: 'open' };
    }
    return state === 'trial' ? { state: 'trial', token } : { state: 'held', nextTrialAt: Number(next) };
  }

  /** A request of `call` met the service down: counted, and held at the threshold. Answers whether the call is held now. */
  async failed(call: string, err: unknown, trial?: string): Promise<boolean> {
    const code = (err as { code?: string }).code ?? 'TRANSIENT';
    const reason = clipReason(`[${code}] ${messageOf(err)}`);
    const args = [
      1,
      this.o.keys.callHolds(),
      call,
      Date.now(),
      this.threshold,
      reason,
      code,
      this.firstTrialMs,
      this.maxTrialMs,
      trial ?? '',
    ];
    try {
      const [state, next, n] = (await runScript(this.o.redis, CALL_FAILED, args)) as [string, number, number];
      if (state === 'closed') {
        this.mark(call, { failures: Number(n) });
        return false;
      }
      this.mark(call, { held: true, next: Number(next), reason, ...(state === 'tripped' ? { since: Date.now() } : {}) });
      if (state === 'tripped') this.tripped(call, Number(n), reason, code);
      else if (Number(n) === 1) this.trialFailed(call, reason, Number(next));
      return true;
    } catch (e) {
      this.couldNot(`count a failure of ${callScopeLabel(call)}`, e);
      return false;
    }
  }

  /** A request of `call` was answered (anything but the service down): the call runs again, its waiting jobs go on. */
  async answered(call: string, detail: string, trial?: string): Promise<void> {
    const s = this.seen.get(call);
    if (!trial && !s?.held && !s?.failures) return;
    try {
      const [state, since, trials] = (await runScript(this.o.redis, CALL_ANSWERED, [
        1,
        this.o.keys.callHolds(),
        call,
        Date.now(),
        detail,
      ])) as [string, string, number];
      this.mark(call, { held: false, failures: 0 });
      if (state !== 'released') return;
      const seconds = Math.round((Date.now() - Number(since)) / 1000);
      this.o.logger.warn(
        { call, seconds, trials: Number(trials), answer: detail },
        `${callScopeLabel(call)} works again (${detail}) after ${seconds} s held and ${trials} ` +
          `${Number(trials) === 1 ? 'trial' : 'trials'}; the jobs that waited at it go on`,
      );
      for (const fn of this.listeners) fn(call, 'released');
    } catch (e) {
      this.couldNot(`release ${callScopeLabel(call)}`, e);
    }
  }

  /** A trial that ended with no verdict (a 429, aborted): the next request may try. */
  async giveBack(call: string, trial: string): Promise<void> {
    await runScript(this.o.redis, CALL_GIVE_BACK, [1, this.o.keys.callHolds(), call, trial]).catch((e: unknown) =>
      this.couldNot(`give back the trial of ${callScopeLabel(call)}`, e),
    );
  }

  private mark(call: string, patch: Partial<Seen>): void {
    const s = this.seen.get(call) ?? { held: false, failures: 0, next: 0, since: 0, reason: '' };
    if (s.held && patch.held === false) this.released.add(call);
    this.seen.set(call, { ...s, ...patch });
  }

  private tripped(call: string, n: number, reason: string, code: string): void {
    const label = callScopeLabel(call);
    this.o.logger.error(
      { call, failures: n, code },
      `${label} is held: ${n} requests of it in a row met ${reason}. Only the jobs whose next step is ${label} wait there ` +
        `(no attempt spent); every other call and stream goes on. One real ${label} tries it in ${this.firstTrialMs / 1000} s, ` +
        'then at growing intervals, and the waiting jobs go on by themselves once it works',
    );
    for (const fn of this.listeners) fn(call, 'held');
  }

  private trialFailed(call: string, reason: string, next: number): void {
    const label = callScopeLabel(call);
    const inSeconds = Math.max(0, Math.round((next - Date.now()) / 1000));
    logRepeated(
      this.o.logger,
      'warn',
      `call-trial:${call}`,
      { call },
      `${label} still fails (${reason}); held, the next trial in ${inSeconds} s`,
    );
  }

  private couldNot(what: string, err: unknown): void {
    // Redis refusing or away is told once by the worker's write probe; the hold's bookkeeping says it only at debug.
    logRepeated(
      this.o.logger,
      findRedisFailure(err) ? 'debug' : 'warn',
      `call-hold:${what}`,
      { err: messageOf(err) },
      `could not ${what} (Redis?); the request's result stands`,
    );
  }
}
