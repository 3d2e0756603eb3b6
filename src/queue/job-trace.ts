import { z } from 'zod';
import type { ApiCall } from '../client/service-api.js';
import type { Failure } from './failure.js';
import type { JobResult } from './job-context.js';

/** One attempt of a job as the runner logs it (one BullMQ job log line per attempt, contract 3). */
export const attemptTraceSchema = z.looseObject({
  attempt: z.number(),
  startedAt: z.string(),
  ms: z.number().optional(),
  calls: z
    .array(
      z.looseObject({
        method: z.string(),
        path: z.string(),
        cls: z.string().optional(),
        status: z.number().nullable(),
        ms: z.number(),
        waitedMs: z.number().optional(),
        error: z.string().optional(),
        at: z.number().optional(),
      }),
    )
    .default([]),
  notes: z.array(z.looseObject({ at: z.string(), message: z.string(), data: z.record(z.string(), z.unknown()).optional() })).default([]),
  result: z.looseObject({ outcome: z.string(), summary: z.string(), details: z.record(z.string(), z.unknown()).optional() }).optional(),
  error: z
    .looseObject({
      name: z.string().optional(),
      code: z.string(),
      message: z.string(),
      hint: z.string().optional(),
      retryable: z.boolean().optional(),
      outcome: z.string().optional(),
    })
    .optional(),
});

export type AttemptTrace = z.infer<typeof attemptTraceSchema>;

/** An attempt's trace as the runner keeps it while the attempt runs. */
export interface RunningTrace {
  attempt: number;
  startedAt: string;
  ms?: number;
  calls: ApiCall[];
  notes: Array<{ at: string; message: string; data?: Record<string, unknown> }>;
}

/**
 * The log line of an attempt, as the runner writes it: typed by the schema its readers parse (attemptTraceSchema),
 * so a writer and its readers cannot drift apart.
 */
export function traceLine(trace: RunningTrace, end: { result?: JobResult; error?: Omit<Failure, 'action' | 'resetAt' | 'group'> }): string {
  const line: z.input<typeof attemptTraceSchema> = {
    ...trace,
    calls: trace.calls.map((c) => ({ ...c })),
    ...(end.result ? { result: { ...end.result } } : {}),
    ...(end.error ? { error: { ...end.error } } : {}),
  };
  return JSON.stringify(line);
}

/** Parses job log lines (oldest first) into attempts; a line that is not a trace is kept apart. */
export function parseTrace(lines: string[]): { attempts: AttemptTrace[]; otherLines: string[] } {
  const attempts: AttemptTrace[] = [];
  const otherLines: string[] = [];
  for (const line of lines) {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      otherLines.push(line);
      continue;
    }
    const parsed = attemptTraceSchema.safeParse(json);
    if (parsed.success) attempts.push(parsed.data);
    else otherLines.push(line);
  }
  return { attempts, otherLines };
}

/** Splits a failedReason `[CODE] message` into its parts. */
export function splitReason(failedReason: string | undefined): { code: string; message: string } | undefined {
  if (!failedReason) return undefined;
  const m = /^\[([A-Z_]+)\]\s*(.*)$/s.exec(failedReason);
  return m ? { code: m[1]!, message: m[2]! } : { code: 'UNKNOWN', message: failedReason };
}
