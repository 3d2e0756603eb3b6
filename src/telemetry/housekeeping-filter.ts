import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-node';

/** BullMQ operations that run outside any job: each would be a trace of its own, every stalled-job check (30 s). */
const HOUSEKEEPING = new Set(['startStalledCheckTimer', 'moveStalledJobsToWait', 'pause', 'resume', 'close', 'addBulk']);

/** A root span of a BullMQ operation outside any job, unless a stalled-job check took jobs back (worth seeing). */
function isHousekeeping(span: ReadableSpan): boolean {
  if (span.parentSpanContext) return false;
  const operation = span.attributes['bullmq.queue.operation'];
  if (typeof operation !== 'string' || !HOUSEKEEPING.has(operation)) return false;
  const stalled = span.attributes['bullmq.worker.stalled.jobs'];
  return !(Array.isArray(stalled) && stalled.length > 0);
}

/**
 * Passes every span to `next` but BullMQ's housekeeping ones: what is exported is the jobs' traces (with a stalled
 * check that took jobs back). A page's `addBulk` is dropped too: each job has a trace of its own (enqueue-spans.ts).
 */
export class HousekeepingFilter implements SpanProcessor {
  constructor(private readonly next: SpanProcessor) {}

  onStart(span: Span, parentContext: Context): void {
    this.next.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    if (!isHousekeeping(span)) this.next.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.next.shutdown();
  }
}
