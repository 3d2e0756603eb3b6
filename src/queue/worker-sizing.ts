import type { Worker } from 'bullmq';
import { defaults } from '../../config/defaults.js';
import type { Logger } from '../log/logger.js';
import { sizeConcurrency } from './concurrency-sizer.js';
import type { JobResult } from './job-context.js';
import type { JobData } from './queues.js';
import type { StartWorkersOptions } from './start-workers-options.js';

/**
 * Sizes the record workers' concurrency again every `everyMs` from the pace (BullMQ reads `worker.concurrency` as it
 * fetches). `workers` gives the workers now.
 */
export function startSizing(
  s: NonNullable<StartWorkersOptions['sizing']>,
  current: () => Array<Worker<JobData, JobResult>>,
  logger: Logger,
): { stop(): void } {
  let busy = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      const workers = current();
      await s.pace.refresh?.().catch(() => undefined);
      const latency = s.pace.latencyMs() ?? defaults.assumedLatencyMs;
      const n = sizeConcurrency(s.pace.ratePerSecond(), latency, s.bounds);
      if (workers[0] && workers[0].concurrency !== n)
        logger.debug(
          { concurrency: n, ratePerSecond: Math.round(s.pace.ratePerSecond() * 10) / 10, latencyMs: Math.round(latency) },
          'jobs at once sized again',
        );
      for (const w of workers) w.concurrency = n;
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), s.everyMs ?? defaults.concurrencySizeMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
