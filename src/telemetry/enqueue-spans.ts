import { SpanKind, TelemetryAttributes, type Queue, type SpanOptions } from 'bullmq';

/** A job as addBulk takes it, with the trace context BullMQ hands to the job's every attempt. */
export type TracedJob<J extends { opts: object }> = J & { opts: J['opts'] & { telemetry?: { metadata: string } } };

/**
 * Gives each job a trace of its own when the queue has BullMQ telemetry: a root `enqueue <queue>` span, whose context
 * BullMQ stores with the job, so that every attempt's `process` span (and the call spans under it) joins that one
 * trace, retries included, and the queue wait shows between them. Without telemetry the jobs are returned as they are.
 */
export function withJobTraces<J extends { opts: { jobId: string } }>(queue: Queue<any>, jobs: J[]): Array<TracedJob<J>> {
  const telemetry = queue.opts.telemetry;
  if (!telemetry) return jobs;
  const { tracer, contextManager } = telemetry;
  // `root` is OpenTelemetry's own span option (not in BullMQ's type): the page or batch a job came in is not its trace.
  const options = { kind: SpanKind.PRODUCER, root: true } as SpanOptions;
  return jobs.map((job) => {
    const span = tracer.startSpan(`enqueue ${queue.name}`, options);
    span.setAttributes({ [TelemetryAttributes.QueueName]: queue.name, [TelemetryAttributes.JobId]: job.opts.jobId });
    const metadata = contextManager.getMetadata(span.setSpanOnContext(contextManager.active()));
    span.end();
    return { ...job, opts: { ...job.opts, telemetry: { metadata } } };
  });
}
