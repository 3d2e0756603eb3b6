import type { Queue } from 'bullmq';
import { defaults } from '../../../config/defaults.js';
import type { Logger } from '../../log/logger.js';
import type { RedisConnection as Redis, RedisKeys } from '../../redis/connection.js';
import { messageOf } from '../../errors/message-of.js';
import { logRepeated, reasonOf } from '../../log/log-throttle.js';
import { startLooking } from '../../time/serial-look.js';
import { isPaused as heldForRefusals } from './refusal-state.js';
import { claimProbe, endOutage, noteProbe, openedAt } from './outage-state.js';
import { CALL_SCOPES } from '../../client/call-scope.js';
import type { CallHolds } from './call-holds.js';
import { callsDueNow, lookAtCalls, type CallLook } from './call-hold-look.js';

import type { ProbeResult } from './outage-probe.js';

export type { ProbeResult };

export interface OutageWatchOptions {
  redis: Redis;
  keys: RedisKeys;
  /** The record queues of this process's streams, by stream: held while the outage is open, let go when it ends. */
  queues: ReadonlyMap<string, Queue>;
  /** One cheap read of the service within the budgets, tried once (outage-probe.ts). */
  probe(): Promise<ProbeResult>;
  logger: Logger;
  /** How often the outage state is looked at while an outage holds this process's queues, in ms. Default defaults.outageLookMs. */
  lookMs?: number;
  /**
   * How often it is looked at while none does, in ms. Default defaults.outageIdleLookMs, or lookMs when that is given
   * (tests). A job that meets the service down during an outage holds its queues at once; this look only makes a
   * process whose jobs meet nothing take part in the probes and let its queues go with the others.
   */
  idleLookMs?: number;
  /** Longest delay between two probes, in ms. Default defaults.outageProbeMaxMs. */
  probeMaxMs?: number;
  /** Called in the process that ended an outage (e.g. to alert now rather than at the next look). */
  onEnd?(r: { seconds: number; waited: number }): void;
  /**
   * This process's side of the held calls (call-holds.ts): each look also refreshes its view, sends a held call's read
   * probe (the outage opens when it fails too), wakes a due trial's job and the jobs of a released call.
   */
  calls?: CallHolds;
  /** The first delay of the outage's probes and of a held call's trials, in ms. Default defaults.outageProbeFirstMs. */
  firstProbeMs?: number;
}

export interface OutageWatch {
  /** Looks now (e.g. right after a job opened the outage), besides the regular looks. */
  lookNow(): void;
  stop(): Promise<void>;
}

/** The outage's start (as stored) and the held calls' hash, in one round trip. */
async function readHoldHashes(redis: Redis, keys: RedisKeys, calls: boolean): Promise<[string | undefined, Record<string, string>]> {
  if (!calls) return [await openedAt(redis, keys), {}];
  const [since, hash] = await Promise.all([openedAt(redis, keys), redis.hgetall(keys.callHolds())]);
  return [since, hash];
}

/** Jobs that wait in a queue (held or not). */
async function waiting(queue: Queue): Promise<number> {
  const c = await queue.getJobCounts('waiting', 'delayed', 'prioritized');
  return Object.values(c).reduce((a, b) => a + b, 0);
}

/** Resumes this process's paused queues, except a stream held for refusals (that one waits for `resume`). */
async function letQueuesGo(o: OutageWatchOptions, why: string): Promise<void> {
  for (const [stream, queue] of o.queues) {
    if (await heldForRefusals(o.redis, o.keys, stream)) continue;
    if (await queue.isPaused()) await queue.resume();
  }
  o.logger.debug(why);
}

/** Probes the service once for the outage opened at `since`: notes a failed probe, or ends the outage when it answers. */
async function probeOutage(o: OutageWatchOptions, since: string, firstProbeMs: number): Promise<void> {
  const r = await o.probe();
  if (!r.up) {
    await noteProbe(o.redis, o.keys, r.detail);
    o.logger.info({ probe: r.detail }, `the service is still down (${r.detail}); every stream holds, the next probe later`);
    return;
  }
  const counts = await Promise.all([...o.queues.values()].map(waiting));
  const n = counts.reduce((a, b) => a + b, 0);
  if (!(await endOutage(o.redis, o.keys, since, n))) return;
  // Each call held before or during the outage proves its own path now: one trial each, at once.
  await callsDueNow(o.redis, o.keys, CALL_SCOPES, firstProbeMs);
  const seconds = Math.round((Date.now() - Number(since)) / 1000);
  o.logger.warn(
    { seconds, waited: n, probe: r.detail },
    `the service answers again (${r.detail}) after ${seconds} s down; ${n} ${n === 1 ? 'job' : 'jobs'} waited, none lost; ` +
      'every stream goes on',
  );
  o.onEnd?.({ seconds, waited: n });
}

/** At start, resumes queues left paused by an outage that ended while every worker was gone (not those held for refusals). */
async function resumeEndedHolds(o: OutageWatchOptions): Promise<void> {
  if (await openedAt(o.redis, o.keys)) return;
  for (const [stream, queue] of o.queues) {
    if (!(await queue.isPaused()) || (await heldForRefusals(o.redis, o.keys, stream))) continue;
    await queue.resume();
    o.logger.info({ stream }, `${stream} was held for a service outage that has ended; it goes on`);
  }
}

/**
 * Each worker process's look at the hold for `outage` (outage-state.ts), every `lookMs`: while it is held this process
 * pauses its streams' queues (BullMQ pause: no job is taken) and, when the shared schedule says a probe is due and this
 * process claims it, probes the service once; the probe that finds the service answering releases the hold and every
 * process lets its queues go (except a stream held for refusals: that one waits for `resume`).
 */
export function startOutageWatch(o: OutageWatchOptions): OutageWatch {
  const lookMs = o.lookMs ?? defaults.outageLookMs;
  const idleLookMs = o.idleLookMs ?? (o.lookMs === undefined ? defaults.outageIdleLookMs : lookMs);
  const probeMaxMs = o.probeMaxMs ?? defaults.outageProbeMaxMs;
  const firstProbeMs = o.firstProbeMs ?? defaults.outageProbeFirstMs;
  /** The outage (its `since`) this process holds its queues for, if any. */
  let holding: string | undefined;
  const callLook: CallLook | undefined = o.calls && {
    redis: o.redis,
    keys: o.keys,
    holds: o.calls,
    queues: o.queues,
    probe: o.probe,
    logger: o.logger,
    firstProbeMs,
    woken: new Map(),
  };

  const letGo = (why: string) => letQueuesGo(o, why);
  const probeOnce = (since: string) => probeOutage(o, since, firstProbeMs);

  const lookOnce = async () => {
    const [since, hash] = await readHoldHashes(o.redis, o.keys, !!callLook);
    o.calls?.see(hash);
    if (since) {
      if (holding !== since) {
        await Promise.all([...o.queues.values()].map((q) => q.pause()));
        holding = since;
      }
      if (await claimProbe(o.redis, o.keys, probeMaxMs)) await probeOnce(since);
      if (!(await openedAt(o.redis, o.keys))) {
        holding = undefined;
        await letGo('outage over; streams go on');
        looks.lookNow();
      }
      return;
    }
    if (holding) {
      holding = undefined;
      await letGo('outage ended by another process; streams go on');
    }
    if (callLook && (await lookAtCalls(callLook, hash, o.calls!.takeReleased()))) looks.lookNow();
  };

  // A process that starts after an outage ended while every worker was gone finds its queues paused with no cause left.
  const start = resumeEndedHolds(o).catch((err: unknown) => o.logger.debug({ err: messageOf(err) }, 'outage start check failed (Redis?)'));

  // Looks that fail (Redis away) are said once per reason every 30 s, with the count.
  const looks = startLooking(
    lookOnce,
    lookMs,
    (err) =>
      logRepeated(o.logger, 'warn', `outage-look:${reasonOf(err)}`, { err: messageOf(err) }, 'outage look failed (Redis?); looking again'),
    { everyMs: idleLookMs, when: () => holding === undefined && !o.calls?.held().length },
  );
  return {
    lookNow: looks.lookNow,
    async stop() {
      await looks.stop();
      await start;
    },
  };
}
