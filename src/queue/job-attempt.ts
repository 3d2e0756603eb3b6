import type { Job } from 'bullmq';
import type { ApiCall } from '../client/service-api.js';
import { logRepeated, reasonOf } from '../log/log-throttle.js';
import type { Logger } from '../log/logger.js';
import type { AttemptTrace } from '../telemetry/job-tracing.js';
import type { RunnerDeps } from './job-context.js';
import { traceLine, type RunningTrace } from './job-trace.js';

/**
 * One attempt of a job as it runs: its trace (every call and note, written as one job log line at its end), its
 * logger (bound to the job id, then to the business key) and its spans when tracing is on.
 */
export class JobAttempt {
  readonly trace: RunningTrace;
  logger: Logger;
  /** Only when tracing is on: otherwise no span is made (src/telemetry/). */
  readonly spans: AttemptTrace | undefined;
  private readonly started = Date.now();

  constructor(
    private readonly job: Job,
    stream: string,
    deps: Pick<RunnerDeps, 'logger' | 'jobTracing'>,
  ) {
    this.trace = { attempt: job.attemptsMade + 1, startedAt: new Date(this.started).toISOString(), calls: [], notes: [] };
    this.logger = deps.logger.child({ jobId: job.id, stream });
    this.spans = deps.jobTracing?.attempt({ stream, jobId: String(job.id), attempt: this.trace.attempt });
  }

  /** From here on, log lines and spans name the record's business key. */
  keyed(key: string): void {
    this.logger = this.logger.child({ key });
    this.spans?.key(key);
  }

  /** A service call made by the attempt. */
  readonly onCall = (call: ApiCall): void => {
    this.trace.calls.push(call);
    this.spans?.onCall(call);
    // One line per write, for an audit kept as long as the logs are (docs/investigating.md, "Audit").
    if (call.method === 'POST')
      this.logger.info({ write: { method: call.method, path: call.path, status: call.status, error: call.error } }, 'service write');
  };

  /** A step worth telling in the trace. */
  note(message: string, data?: Record<string, unknown>): void {
    this.trace.notes.push({ at: new Date().toISOString(), message, ...(data ? { data } : {}) });
    this.spans?.note(message);
    this.logger.debug({ data }, message);
  }

  /** Writes the trace as the job's log line; a failed write is logged and the job goes on. */
  async writeTrace(end: Parameters<typeof traceLine>[1]): Promise<void> {
    this.trace.ms = Date.now() - this.started;
    await this.job.log(traceLine(this.trace, end)).catch((err: Error) => couldNot(this.logger, 'write the attempt trace', err));
  }
}

/** A bookkeeping write that failed (Redis full or away): the job goes on; logged once per reason every 30 s. */
export function couldNot(logger: Logger, what: string, err: Error): void {
  logRepeated(logger, 'warn', `${what}:${reasonOf(err)}`, { err: err.message }, `could not ${what}`);
}
