import type { ApiCall } from '../client/service-api.js';

/** What one attempt of a job reports to its trace (src/telemetry/call-spans.ts when tracing is on). */
export interface AttemptTrace {
  /** The job's business key (orderId, countId...), on the job span. */
  key(key: string): void;
  /** A service call: a child span of the job span (or of the settle span it was made in), timed with its budget wait. */
  onCall(call: ApiCall): void;
  /** A note of the attempt, as an event on the job span (the message only: notes' data stays in the job log). */
  note(message: string): void;
  /** Runs `fn` as the settlement of an uncertain write: a `settle <pending>` span, its reads marked settle=true. */
  settling<T>(pending: string, fn: () => Promise<T>): Promise<T>;
  /** The attempt's end on the job span: outcome (synced/unchanged/skipped/failed/retry/held/delayed) and error code. */
  end(outcome: string, code?: string): void;
}

/** Per-job tracing, given to the job runner only when tracing is on (otherwise no span is ever made). */
export interface JobTracing {
  /** Starts the trace of one attempt, under the job span that BullMQ's telemetry made active for the processor. */
  attempt(job: { stream: string; jobId: string; attempt: number }): AttemptTrace;
}
