import type { ApiCall } from '../client/service-api.js';

/** What sizing the workers reads: the rate the budgets allow and the service's latency. */
export interface Pace {
  /** Requests a second the budgets let the program send now, every process together (Infinity: no budget). */
  ratePerSecond(): number;
  /** Typical time on the wire of one request, ms; undefined before the first answer. */
  latencyMs(): number | undefined;
  /** Reads the shared state again (the shares other processes lowered or raised). */
  refresh?(): Promise<void>;
}

export interface ConcurrencyBounds {
  /** Least jobs at once: a job may also wait on other things than the service (a key lock, a catalog refresh). */
  min: number;
  /** Most jobs at once (WORKER_CONCURRENCY_MAX). */
  max: number;
}

/** Slack over rate × latency: jobs spend time between their requests too, and latency varies. */
const SLACK = 2;

/**
 * Jobs at once that keep `rate` requests a second going when one takes `latencyMs` (a job sends its requests one
 * after another, so jobs in flight = requests in flight = rate × latency, Little's law), with slack, within bounds.
 * No budget (an infinite rate) answers the maximum.
 */
export function sizeConcurrency(ratePerSecond: number, latencyMs: number, b: ConcurrencyBounds): number {
  const max = Math.max(1, Math.floor(b.max));
  const min = Math.max(1, Math.min(Math.floor(b.min), max));
  if (!Number.isFinite(ratePerSecond)) return max;
  const n = Math.ceil(ratePerSecond * (Math.max(0, latencyMs) / 1000) * SLACK);
  return Math.min(max, Math.max(min, n));
}

/** Moving average of the time on the wire of entity calls (collection GETs are rare and slow: left out). */
export class LatencyMeter {
  private avg: number | undefined;
  constructor(private readonly weight = 0.1) {}

  record(call: Pick<ApiCall, 'cls' | 'status' | 'ms'>): void {
    if (call.status === null || call.cls === 'collection') return;
    this.avg = this.avg === undefined ? call.ms : this.avg + this.weight * (call.ms - this.avg);
  }

  ms(): number | undefined {
    return this.avg;
  }
}
