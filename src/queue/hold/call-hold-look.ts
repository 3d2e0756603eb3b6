import type { Queue } from 'bullmq';
import { callScopeLabel } from '../../client/call-scope.js';
import type { Logger } from '../../log/logger.js';
import type { RedisConnection as Redis, RedisKeys } from '../../redis/connection.js';
import { runScript } from '../../redis/scripts.js';
import { fieldsOf } from './call-hold.js';
import { wakeHeldJobs } from './call-held-jobs.js';
import type { CallHolds } from './call-holds.js';
import { CALL_CLAIM_PROBE, CALLS_DUE_NOW } from './call-hold-scripts.js';
import { clipReason } from './hold.js';
import type { ProbeResult } from './outage-probe.js';
import { recordServiceDown } from './outage-state.js';

/** What a process's look at the held calls needs (hold-watch.ts gives it). */
export interface CallLook {
  redis: Redis;
  keys: RedisKeys;
  holds: CallHolds;
  /** The record queues of this process's streams, by stream: where the waiting jobs are woken. */
  queues: ReadonlyMap<string, Queue>;
  /** One read of the service, tried once (outage-probe.ts): a held call is the service down when it fails too. */
  probe(): Promise<ProbeResult>;
  logger: Logger;
  /** The first delay of the outage's probes, when a held call turns out to be the service down. */
  firstProbeMs: number;
  /** Per call, the trial time whose job this process woke already (one wake per trial, not one per look). */
  woken: Map<string, number>;
}

/** The read probe tells a held call apart from the service down: the read is another call (unless reads are what is held). */
function probeTells(call: string, held: readonly string[]): boolean {
  return call !== 'entity-reads' || held.length > 1;
}

/**
 * A held call's read probe, once per hold across every process: when the read fails too, the service is down for
 * everything and the account-wide outage opens (outage-state.ts); when it answers, only that call is held. Answers
 * whether the outage opened.
 */
async function probeCall(l: CallLook, call: string, reason: string, code: string): Promise<boolean> {
  if (Number(await runScript(l.redis, CALL_CLAIM_PROBE, [1, l.keys.callHolds(), call, Date.now()])) !== 1) return false;
  const label = callScopeLabel(call);
  const r = await l.probe();
  if (r.up) {
    await l.redis.hset(l.keys.callHolds(), `${call}:probe`, clipReason(`${r.detail}: the rest of the service answers`));
    l.logger.warn(
      { call, probe: r.detail },
      `only ${label} fails (${reason}); a read of the service answers (${r.detail}): the jobs whose next step is ${label} wait, ` +
        'every other call and stream goes on',
    );
    return false;
  }
  const why = clipReason(`${reason} (${label}); a read of the service fails too (${r.detail})`);
  const first = { threshold: 1, reason: why, firstProbeMs: l.firstProbeMs, code: code || 'TRANSIENT' };
  const opened = await recordServiceDown(l.redis, l.keys, first);
  if (opened.state === 'tripped')
    l.logger.error(
      { call, probe: r.detail },
      `the service is down: ${why}. Every stream holds: no job runs, none is pulled, none spends an attempt; one read probes ` +
        'the service, and work goes on by itself when it answers',
    );
  return true;
}

/**
 * One look at the held calls while the service is not down for everything: the jobs of a call released since the last
 * look go on; each held call's read probe is sent once; and when a held call's trial is due, its oldest waiting job is
 * woken to be the trial (a new job that reaches the call first is the trial instead). Answers whether the outage opened.
 */
export async function lookAtCalls(l: CallLook, hash: Readonly<Record<string, string>>, released: readonly string[]): Promise<boolean> {
  for (const call of released) {
    l.woken.delete(call);
    await wakeHeldJobs(l.redis, l.keys, call, l.queues);
  }
  const held = l.holds.held();
  const now = Date.now();
  for (const call of held) {
    const f = fieldsOf(hash, call);
    if (!f.probed && probeTells(call, held) && (await probeCall(l, call, f.reason ?? '', f.code ?? ''))) return true;
    const next = Number(f.next ?? 0);
    const trialOut = f.trial !== undefined && Number(f.trialUntil ?? 0) > now;
    if (next > now || trialOut || l.woken.get(call) === next) continue;
    l.woken.set(call, next);
    await wakeHeldJobs(l.redis, l.keys, call, l.queues, 1);
  }
  return false;
}

/** The service answers again after an outage: every held call's trial is due now (each proves its own path). */
export async function callsDueNow(redis: Redis, keys: RedisKeys, calls: readonly string[], firstTrialMs: number): Promise<number> {
  if (!calls.length) return 0;
  return Number(await runScript(redis, CALLS_DUE_NOW, [1, keys.callHolds(), Date.now(), firstTrialMs, ...calls]));
}
