import type { Job } from 'bullmq';
import { defaults } from '../../config/defaults.js';
import type { Logger } from '../log/logger.js';
import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import type { Failure } from './failure.js';
import { recordServiceDown } from './service-outage.js';

/** What the runner needs to hold every stream while the service is down (worker-pool.ts gives it). */
export interface OutageHooks {
  /** The service down met by jobs in a row, across every process, that opens the outage. Default defaults.outageThreshold. */
  threshold?: number;
  /** Pauses the record queues of this process's streams (every process's look pauses its own within a second). */
  holdAll(): Promise<void>;
  /** How soon a job that met the outage is due again, in ms (it then waits in its paused queue). */
  holdMs?: number;
  /** First delay before the first probe, in ms. */
  firstProbeMs?: number;
}

export interface OutageHoldContext {
  redis: Redis;
  keys: RedisKeys;
  stream: string;
  logger: Logger;
  hooks: OutageHooks;
}

/**
 * The service down for a job (`refusal: 'service-down'`: 5xx, the network, a time-out): counted in a row for the
 * account; once the row reaches the threshold, or while the outage is open, the job goes back to wait with its
 * progress and no attempt spent, and every stream holds. Below the threshold the job is settled as before (a retry
 * with backoff). Answers true when the job was moved to delayed (throw DelayedError).
 */
export async function holdForOutage(job: Job, token: string | undefined, f: Failure, c: OutageHoldContext): Promise<boolean> {
  const reason = `[${f.code}] ${f.message}`;
  const r = await recordServiceDown(c.redis, c.keys, {
    threshold: c.hooks.threshold ?? defaults.outageThreshold,
    reason,
    firstProbeMs: c.hooks.firstProbeMs ?? defaults.outageProbeFirstMs,
  });
  if (r.state === 'closed') return false;
  await c.hooks.holdAll();
  if (r.state === 'tripped')
    c.logger.error(
      { code: f.code, failures: r.failures },
      `the service is down: ${r.failures} jobs in a row met ${reason}. Every stream holds: no job runs, none is pulled, none ` +
        'spends an attempt; one read probes the service, and work goes on by itself when it answers',
    );
  else c.logger.debug({ code: f.code }, `${reason} during the outage; the job waits, no attempt spent`);
  await job.moveToDelayed(Date.now() + (c.hooks.holdMs ?? defaults.breakerHoldMs), token);
  return true;
}
