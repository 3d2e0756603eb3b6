import type { Job } from 'bullmq';
import { parseTrace } from '../queue/job-trace.js';
import type { StreamQueues } from '../queue/stream-queues.js';
import { recordKey } from '../records/records.js';
import type { StreamName } from '../records/stream-name.js';
import type { OpsKind } from './ops-kind.js';

/** One write the program made to the service, from a job's attempt traces. */
export interface AuditRow {
  /** When the call started (ISO). */
  at: string;
  stream: StreamName;
  /** The record's business key. */
  key: string | null;
  jobId: string;
  method: string;
  path: string;
  /** The answer's status; null when none came (the write may or may not have applied: the job settled it). */
  status: number | null;
  /** The entity written: the path's entity, or for a create the entity the job's result names. */
  entityUrl: string | null;
  error?: string;
}

export interface AuditOptions {
  /** Epoch ms, inclusive. */
  since?: number;
  /** Epoch ms, exclusive. */
  until?: number;
  streams?: readonly StreamName[];
}

const STATES = ['completed', 'failed', 'active', 'delayed', 'waiting', 'prioritized'] as const;
const PAGE = 500;

/** `/acme/api/order/X/complete` → `/acme/api/order/X`; a collection root (`/acme/api/order`) has none. */
function entityOfPath(path: string): string | undefined {
  const m = /^(\/[^/]+\/api\/[^/]+\/[^/]+)/.exec(path);
  return m?.[1];
}

/** The collection a create goes to: `/acme/api/shipment/` → `shipment`. */
function collectionOf(path: string): string | undefined {
  return /^\/[^/]+\/api\/([^/]+)\/?$/.exec(path)?.[1];
}

/** The URLs a job's results name (its kind's find rule over each attempt's details), by collection, in order. */
function createdUrls(kind: OpsKind | undefined, details: Array<Record<string, unknown>>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const d of details)
    for (const e of kind?.ops?.find?.entities(d) ?? []) {
      const c = /^\/[^/]+\/api\/([^/]+)\//.exec(e.url)?.[1];
      if (c && !(out.get(c) ?? []).includes(e.url)) out.set(c, [...(out.get(c) ?? []), e.url]);
    }
  return out;
}

async function rowsOf(queues: StreamQueues, kind: OpsKind | undefined, stream: StreamName, job: Job, o: AuditOptions): Promise<AuditRow[]> {
  const { logs } = await queues.get(stream).getJobLogs(job.id!, 0, -1, true);
  const { attempts } = parseTrace(logs);
  const details = attempts.flatMap((a) => (a.result?.details ? [a.result.details] : []));
  const created = createdUrls(kind, details);
  const key = kind ? (recordKey(kind, (job.data as { record?: unknown })?.record) ?? null) : null;
  const rows: AuditRow[] = [];
  for (const a of attempts)
    for (const c of a.calls) {
      if (c.method !== 'POST') continue;
      const at = c.at ?? Date.parse(a.startedAt);
      if ((o.since !== undefined && at < o.since) || (o.until !== undefined && at >= o.until)) continue;
      const coll = collectionOf(c.path);
      // A create that was answered: the next URL of its collection the job's result names.
      const entityUrl = entityOfPath(c.path) ?? (coll && c.status !== null && c.status < 300 ? created.get(coll)?.shift() : undefined);
      rows.push({
        at: new Date(at).toISOString(),
        stream,
        key,
        jobId: job.id!,
        method: c.method,
        path: c.path,
        status: c.status,
        entityUrl: entityUrl ?? null,
        ...(c.error ? { error: c.error } : {}),
      });
    }
  return rows;
}

/**
 * Every write (POST) the program made to the service, oldest first, from what it keeps: the attempt traces of the
 * jobs still in the queues (completed jobs 7 days, at most 50,000 per stream; failed ones until retried or trimmed;
 * each job's last 50 attempts). See docs/investigating.md, "Audit".
 */
export async function auditWrites(queues: StreamQueues, kinds: readonly OpsKind[], o: AuditOptions = {}): Promise<AuditRow[]> {
  const rows: AuditRow[] = [];
  for (const stream of o.streams ?? queues.names) {
    const kind = kinds.find((k) => k.stream === stream);
    for (let start = 0; ; start += PAGE) {
      const jobs = await queues.get(stream).getJobs([...STATES], start, start + PAGE - 1, true);
      for (const job of jobs) {
        if (!job?.id) continue;
        // Jobs that ended before the window, or were queued after it, made no write in it.
        if (o.since !== undefined && job.finishedOn && job.finishedOn < o.since) continue;
        if (o.until !== undefined && job.timestamp >= o.until) continue;
        rows.push(...(await rowsOf(queues, kind, stream, job, o)));
      }
      if (jobs.length < PAGE) break;
    }
  }
  return rows.sort((a, b) => a.at.localeCompare(b.at) || a.jobId.localeCompare(b.jobId));
}
