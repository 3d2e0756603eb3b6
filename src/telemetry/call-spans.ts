import {
  context,
  createContextKey,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { ApiCall } from '../client/service-api.js';
import type { AttemptTrace, JobTracing } from './job-tracing.js';
import { callSpanName, pathTemplate } from './path-template.js';

/** Marks the context of a settlement: the reads made in it carry inventory.settle=true. */
const SETTLING = createContextKey('inventory-sync.settling');
const FAILED = new Set(['failed', 'retry']);

/** The attributes of a call span: never the path as sent (account, ids), a header, a body or an answer. */
function callAttributes(call: ApiCall, template: string, attempt: number, settling: boolean): Attributes {
  const a: Attributes = {
    'http.request.method': call.method,
    'url.template': template,
    'inventory.request_class': call.cls,
    'inventory.budget_wait_ms': call.waitedMs,
    'inventory.attempt': attempt,
    'inventory.outcome': call.error ? 'error' : 'ok',
  };
  if (call.status !== null) a['http.response.status_code'] = call.status;
  if (call.error) a['error.type'] = call.error;
  if (settling) a['inventory.settle'] = true;
  return a;
}

/**
 * Per-job tracing over an OpenTelemetry tracer: the job span is BullMQ's `process <queue>` span (active while the
 * processor runs); each service call becomes a child span after it is made, from the time it began waiting for
 * budget to its answer, so nothing is added to the call's own path. `accountName` (ACCOUNTS_FILE's) marks each job
 * span, so one collector tells the accounts apart.
 */
export function jobTracing(tracer: Tracer, account: string, accountName?: string): JobTracing {
  return {
    attempt(job): AttemptTrace {
      const active = trace.getActiveSpan();
      // Run by a worker without telemetry (not the program's own): a job span of our own, so calls still have a parent.
      const own: Span | undefined = active ? undefined : tracer.startSpan(`process ${job.stream}`, { kind: SpanKind.CONSUMER });
      const jobSpan = (active ?? own)!;
      const base: Context = own ? trace.setSpan(context.active(), own) : context.active();
      jobSpan.setAttributes({ 'inventory.stream': job.stream, 'inventory.job_id': job.jobId, 'inventory.attempt': job.attempt });
      if (accountName !== undefined) jobSpan.setAttribute('inventory.account', accountName);
      const parent = (): Context => (context.active().getValue(SETTLING) ? context.active() : base);
      return {
        key(key) {
          jobSpan.setAttribute('inventory.key', key);
        },
        onCall(call) {
          const ctx = parent();
          const template = pathTemplate(call.path, account);
          const span = tracer.startSpan(
            callSpanName(call.method, template),
            {
              kind: SpanKind.CLIENT,
              startTime: call.at - call.waitedMs,
              attributes: callAttributes(call, template, job.attempt, ctx !== base),
            },
            ctx,
          );
          if (call.waitedMs > 0) span.addEvent('budget granted', { 'inventory.budget_wait_ms': call.waitedMs }, call.at);
          if (call.error) span.setStatus({ code: SpanStatusCode.ERROR, message: call.error });
          span.end(call.at + call.ms);
        },
        note(message) {
          jobSpan.addEvent(message);
        },
        async settling(pending, fn) {
          const span = tracer.startSpan(
            `settle ${pending}`,
            { attributes: { 'inventory.settle.pending': pending, 'inventory.attempt': job.attempt } },
            parent(),
          );
          try {
            return await context.with(trace.setSpan(parent(), span).setValue(SETTLING, true), fn);
          } catch (err) {
            const code = (err as { code?: unknown }).code;
            span.setStatus({ code: SpanStatusCode.ERROR, ...(typeof code === 'string' ? { message: code } : {}) });
            throw err;
          } finally {
            span.end();
          }
        },
        end(outcome, code) {
          jobSpan.setAttributes({ 'inventory.outcome': outcome, ...(code ? { 'inventory.error.code': code } : {}) });
          if (FAILED.has(outcome)) jobSpan.setStatus({ code: SpanStatusCode.ERROR, ...(code ? { message: code } : {}) });
          own?.end();
        },
      };
    },
  };
}
