// Loaded only when tracing is on (src/telemetry/start-tracing.ts imports it dynamically): the SDK costs nothing otherwise.
import { diag, DiagLogLevel, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Telemetry } from 'bullmq';
import { BullMQOtel } from 'bullmq-otel';
import type { Logger } from '../log/logger.js';
import { jobTracing } from './call-spans.js';
import { HousekeepingFilter } from './housekeeping-filter.js';
import type { JobTracing } from './job-tracing.js';
import { messageOf } from '../errors/message-of.js';

/** The tracer's and the default service's name (OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override it). */
export const TRACER_NAME = 'inventory-sync';

export interface TracingOptions {
  /** The service account: call paths are traced as templates without it. */
  account: string;
  /** The account of ACCOUNTS_FILE (config.accountName): each job span carries it as `inventory.account`. None without the file. */
  accountName?: string;
  /** Where the SDK's own warnings go (an export that failed, a bad OTEL_* value). */
  logger: Logger;
}

/** Tracing as the program uses it: BullMQ's telemetry for queues and workers, spans per job, and a flush at the end. */
export interface Tracing {
  telemetry: Telemetry;
  jobs: JobTracing;
  /** The spans of each job for another service account (one process running several accounts: the tracer is the process's). */
  jobsFor(account: string, accountName?: string): JobTracing;
  /** Exports what is buffered and stops; later spans are dropped. Safe to call twice. */
  shutdown(): Promise<void>;
}

/**
 * Registers a global tracer provider that exports over OTLP/HTTP (JSON), configured by the standard OTEL_* variables
 * (endpoint, headers, timeout, sampler, batch sizes, resource), which the SDK reads from the environment itself.
 */
export function startTracing(o: TracingOptions): Tracing {
  diag.setLogger(
    {
      error: (msg) => o.logger.warn({ component: 'opentelemetry' }, `tracing: ${msg}`),
      warn: (msg) => o.logger.warn({ component: 'opentelemetry' }, `tracing: ${msg}`),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    DiagLogLevel.WARN,
  );
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: TRACER_NAME }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new HousekeepingFilter(new BatchSpanProcessor(new OTLPTraceExporter()))],
  });
  // The AsyncLocalStorage context manager and the W3C propagator: BullMQ carries the job's context through Redis.
  provider.register();
  let stopped: Promise<void> | undefined;
  return {
    telemetry: new BullMQOtel({ tracerName: TRACER_NAME }),
    jobs: jobTracing(trace.getTracer(TRACER_NAME), o.account, o.accountName),
    jobsFor: (account, accountName) => jobTracing(trace.getTracer(TRACER_NAME), account, accountName),
    shutdown() {
      stopped ??= provider
        .shutdown()
        .catch((err: unknown) => o.logger.warn({ err: messageOf(err) }, 'tracing: the last spans could not be exported'));
      return stopped;
    },
  };
}
