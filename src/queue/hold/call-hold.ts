import { CALL_SCOPES, callScopeLabel } from '../../client/call-scope.js';
import type { RedisConnection as Redis, RedisKeys } from '../../redis/connection.js';

/**
 * The hold of one named call of the service (a row's `scope` in src/client/service-calls.ts: order create, order
 * actions, shipment create, shipment update, variance, product update, collection reads, entity reads), as
 * resilience4j keeps one breaker per named call. One small state machine per call, in one Redis hash for the account
 * (`keys.callHolds()`, fields `{call}:*`), shared by every process (call-hold-scripts.ts):
 *
 *   running(n) --a request meets the service down--> running(n + 1)   below the threshold
 *   running(n) --a request meets the service down--> held(since)      at the threshold (3 in a row, across processes)
 *   running(n) --a request is answered-------------> running(0)
 *   held       --a job's next step is the call-----> held              not sent; the job waits at that step with its
 *                                                                      progress, no attempt spent (call-held-jobs.ts)
 *   held       --its trial is due-----------------> trial             one real request of the call goes (half-open)
 *   trial      --the service down-----------------> held              the next trial twice as far (2 s, 4 s, ... at most
 *                                                                      OUTAGE_PROBE_MAX_SECONDS)
 *   trial      --answered-------------------------> running(0)        the jobs that waited go on at once
 *
 * Only a request of that call releases it: a read of an order says nothing of shipment creates. "The service down" is a
 * 5xx, a reset or refused connection or a time-out (TRANSIENT); any other answer, 4xx included, says the call answers.
 * When a held call's read probe finds the rest of the service down too, it is the account-wide outage
 * (outage-state.ts): every stream holds and one read probes; when it ends, each held call's trial is due at once.
 */

/** One call's hold as the surfaces show it (status, /readyz, /metrics, alerts, the dashboard). */
export interface CallHoldState {
  /** The call (`shipment-create`) and what a person reads (`shipment create`). */
  call: string;
  label: string;
  held: boolean;
  /** While held: since when (ISO), the failure that held it (`[CODE] message`), its code. */
  since: string | null;
  reason: string | null;
  code: string | null;
  /** Service-down answers in a row (running), or the count that held it. */
  failures: number;
  /** Trials sent while held; the last failed one's answer and time (ISO); the next one's earliest time (ISO). */
  trials: number;
  lastTrial: string | null;
  lastTrialAt: string | null;
  nextTrialAt: string | null;
  /** What the read of the rest of the service found when the call was held ("HTTP 404": the rest answers). */
  probe: string | null;
  /** Times the call was held since its hash began (transitions running → held). */
  opened: number;
  /** The last hold that ended: since, ended (ISO), its trials and what answered; whether its start and end were told. */
  last: { since: string; endedAt: string; seconds: number; trials: number; answer: string; alerted: boolean; endTold: boolean } | null;
  /** Whether this hold was told through the alert webhook (it lasted OUTAGE_ALERT_SECONDS). */
  alerted: boolean;
}

/** One call's fields of the hash, as the view and the surfaces read them. */
export type CallFields = Readonly<Record<string, string | undefined>>;

const iso = (ms: string | undefined) => (ms ? new Date(Number(ms)).toISOString() : null);

/** The fields of `call` in the hash's fields. */
export function fieldsOf(hash: Readonly<Record<string, string>>, call: string): CallFields {
  const head = `${call}:`;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(hash)) if (k.startsWith(head)) out[k.slice(head.length)] = v;
  return out;
}

/** One call's state, from its fields. */
export function callState(call: string, f: CallFields): CallHoldState {
  const held = f.state === 'held';
  const ended = f.lastSince && f.lastEnded ? { since: f.lastSince, ended: f.lastEnded } : undefined;
  return {
    call,
    label: callScopeLabel(call),
    held,
    since: held ? iso(f.since) : null,
    reason: held ? (f.reason ?? null) : null,
    code: held ? (f.code ?? null) : null,
    failures: Number(f.failures ?? 0),
    trials: held ? Number(f.trials ?? 0) : 0,
    lastTrial: held ? (f.lastTrial ?? null) : null,
    lastTrialAt: held ? iso(f.lastTrialAt) : null,
    nextTrialAt: held ? iso(f.next) : null,
    probe: held ? (f.probe ?? null) : null,
    opened: Number(f.opened ?? 0),
    last: ended
      ? {
          since: iso(ended.since)!,
          endedAt: iso(ended.ended)!,
          seconds: Math.round((Number(ended.ended) - Number(ended.since)) / 1000),
          trials: Number(f.lastTrials ?? 0),
          answer: f.lastAnswer ?? '',
          alerted: f.lastAlerted === '1',
          endTold: f.lastEndTold === '1',
        }
      : null,
    alerted: held && f.alerted === '1',
  };
}

/** Marks a call's hold (`which`: its start, or the end of its last) as told; false when another process told it. */
export async function claimCallAlert(redis: Redis, keys: RedisKeys, call: string, which: 'start' | 'end'): Promise<boolean> {
  return (await redis.hsetnx(keys.callHolds(), `${call}:${which === 'start' ? 'alerted' : 'lastEndTold'}`, '1')) === 1;
}

/** Gives a claim back (the webhook failed), so that the next look tells it again. */
export async function releaseCallAlert(redis: Redis, keys: RedisKeys, call: string, which: 'start' | 'end'): Promise<void> {
  await redis.hdel(keys.callHolds(), `${call}:${which === 'start' ? 'alerted' : 'lastEndTold'}`);
}

/** Every named call's hold, in the order of CALL_SCOPES (calls that never failed read as running). */
export async function readCallHolds(redis: Redis, keys: RedisKeys): Promise<CallHoldState[]> {
  return callHoldsFrom(await redis.hgetall(keys.callHolds()));
}

/** Every named call's hold from the hash as read (`keys.callHolds()`; `status` reads many accounts' in a pipeline). */
export function callHoldsFrom(hash: Readonly<Record<string, string>>): CallHoldState[] {
  return CALL_SCOPES.map((call) => callState(call, fieldsOf(hash, call)));
}
