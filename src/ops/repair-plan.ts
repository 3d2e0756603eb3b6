import type { Queue } from 'bullmq';
import type { RecordJob } from '../queue/record-jobs.js';
import type { JobData } from '../queue/queues.js';
import { findKind } from '../records/records.js';
import type { StreamName } from '../records/stream-name.js';
import { rerunJob } from './rerun-jobs.js';
import type { Drift, ReconcileReport } from './reconcile-types.js';
import type { OpsKind } from './ops-kind.js';

/** One drift of a repair run: what is done about it, and (after the run) how that ended. */
export interface RepairItem {
  stream: StreamName;
  key: string;
  kind: string;
  field: string;
  service: string;
  synced: string;
  /** repair: a job repairs it; by-hand: the API cannot, a person can; skipped: it waits (an option, a person first). */
  action: 'repair' | 'by-hand' | 'skipped';
  /** What the repair writes, or what a person does, or why it waits. */
  what: string;
  /** The job of the repair (also for a skipped stock repair, which the dry run previews). */
  jobId?: string;
  /** After the run: repaired (the job wrote), in order (the job found nothing to write), failed (why), or not run. */
  result?: 'repaired' | 'in order' | 'failed' | 'not run';
  error?: string;
}

export interface RepairPlan {
  run: string;
  items: RepairItem[];
  /** One job per record with something to repair; `runs` false for those an option holds back (previewed only). */
  jobs: Array<{ job: RecordJob; runs: boolean }>;
}

const itemOf = (d: Drift, action: RepairItem['action'], what: string): RepairItem => ({
  stream: d.stream,
  key: d.key,
  kind: d.kind,
  field: d.field,
  service: d.service,
  synced: d.synced,
  action,
  what,
});

/**
 * The repairs of a reconcile report: per record, its kind's repair rule says which drifts one job repairs (a job of
 * the record's newest synced version, planned from the service) and which are left to a person or skipped.
 */
export async function planRepairs(
  report: ReconcileReport,
  o: { kinds: readonly OpsKind[]; queues: { get(stream: StreamName): Pick<Queue, 'getJob'> }; optIns: ReadonlySet<string>; run: string },
): Promise<RepairPlan> {
  const groups = new Map<string, Drift[]>();
  for (const d of report.drifts) {
    const k = `${d.stream}\u0000${d.key}`;
    groups.set(k, [...(groups.get(k) ?? []), d]);
  }
  const items: RepairItem[] = [];
  const jobs: RepairPlan['jobs'] = [];
  for (const drifts of groups.values()) {
    const first = drifts[0]!;
    const kind = findKind(o.kinds, first.stream);
    if (!kind?.ops?.repair) {
      for (const d of drifts) items.push(itemOf(d, 'by-hand', `no repair for the ${d.stream} stream: fix it in the web application`));
      continue;
    }
    const plan = kind.ops.repair.plan(drifts);
    for (const l of plan.left) items.push(itemOf(l.drift, l.action, l.why));
    if (!plan.repairs.length) continue;
    const synced = first.jobId ? await o.queues.get(first.stream).getJob(first.jobId) : undefined;
    const record = (synced?.data as JobData | undefined)?.record;
    if (record === undefined) {
      for (const r of plan.repairs)
        items.push(itemOf(r.drift, 'skipped', `the job that synced it (${first.jobId ?? 'none'}) is no longer kept; resync the record`));
      continue;
    }
    const held = kind.ops.repair.optIn && !o.optIns.has(kind.ops.repair.optIn.option) ? kind.ops.repair.optIn : undefined;
    const job = rerunJob(kind, record, {
      reason: 'repair',
      run: o.run,
      drifts: plan.repairs.map((r) => `${r.drift.kind} ${r.drift.field}`),
      ...(plan.targets !== undefined ? { targets: plan.targets } : {}),
    });
    jobs.push({ job, runs: !held });
    for (const r of plan.repairs)
      items.push({
        ...itemOf(r.drift, held ? 'skipped' : 'repair', held ? `${held.why} (would write: ${r.what})` : r.what),
        jobId: job.opts.jobId,
      });
  }
  return { run: o.run, items, jobs };
}
