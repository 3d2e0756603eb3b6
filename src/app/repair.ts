import type { DryRunSource } from './dry-run-records.js';
import { dryRun } from './dry-run.js';
import { runId } from '../ops/rerun-jobs.js';
import { reconcile, storeReport } from '../ops/reconcile.js';
import type { ReconcileReport } from '../ops/reconcile-types.js';
import { planRepairs, type RepairItem } from '../ops/repair-plan.js';
import type { StreamName } from '../records/stream-name.js';
import type { AppDeps } from './build-deps.js';
import { runRecordJobs } from './run-jobs.js';
import type { RepairReport } from '../ops/repair-report.js';

export interface RepairOptions {
  streams?: readonly StreamName[];
  /** The options the kinds' repairs ask for (`include-stock`). */
  optIns?: ReadonlySet<string>;
  signal?: AbortSignal;
  /** Reconcile --deep: read every synced order to compare its lines. */
  deep?: boolean;
  /** Only this record's drifts (the dashboard's per-drift button). */
  only?: { stream: StreamName; key: string };
}

function reconcileDeps(d: AppDeps) {
  return {
    client: d.client,
    catalog: d.catalog,
    redis: d.redis,
    prefix: d.keys.prefix,
    queues: d.queues,
    kinds: d.kinds,
  };
}

/**
 * `reconcile --repair`: reconcile, then one job per drifted record (its kind's repair rule says which drifts it
 * repairs), run through the same workers and budgets as a sync; then reconcile again. Over a dry run's parts
 * (`d.dryRun`) the jobs are previewed instead, and nothing is stored.
 */
export async function repairDrifts(d: AppDeps, o: RepairOptions = {}): Promise<RepairReport> {
  const run = runId();
  const before = await reconcile(reconcileDeps(d), o.streams, { deep: o.deep });
  if (!d.dryRun) await storeReport(d.redis, before);
  const only = o.only;
  const mine = (d: { stream: StreamName; key: string }) => !only || (d.stream === only.stream && d.key === only.key);
  const asked = only ? { ...before, drifts: before.drifts.filter(mine) } : before;
  const plan = await planRepairs(asked, { kinds: d.kinds, queues: d.queues, optIns: o.optIns ?? new Set(), run });
  const items = plan.items;
  if (d.dryRun) {
    const sources: DryRunSource[] = [...new Set(plan.jobs.map((j) => j.job.name))].map((stream) => ({
      stream,
      from: 'jobs',
      jobs: plan.jobs.filter((j) => j.job.name === stream).map((j) => j.job),
    }));
    const dry = await dryRun(
      { client: d.client, catalog: d.catalog, redis: d.redis, keys: d.keys, logger: d.logger, jobs: d.config.jobs, maxRecordBytes: 0 },
      { kinds: [...d.kinds], sources, signal: o.signal },
    );
    for (const i of items) {
      const p = dry.records.find((r) => r.jobId === i.jobId);
      if (i.action === 'repair' && p?.outcome === 'fails') Object.assign(i, { result: 'failed', error: p.summary });
    }
    const ok = items.every((i) => i.action === 'repair' && i.result !== 'failed');
    return { run, dryRun: true, before, items, plans: dry.records, jobs: [], ok };
  }
  const jobs = await runRecordJobs(
    d,
    plan.jobs.filter((j) => j.runs).map((j) => j.job),
    { kinds: d.kinds, signal: o.signal },
  );
  for (const i of items) {
    if (i.action !== 'repair') continue;
    const end = jobs.find((j) => j.jobId === i.jobId);
    if (end?.state === 'completed') i.result = end.outcome === 'synced' ? 'repaired' : 'in order';
    else if (end?.state === 'failed') Object.assign(i, { result: 'failed', error: end.error });
    else i.result = 'not run';
  }
  const after = asked.drifts.length === 0 ? before : await reconcile(reconcileDeps(d), o.streams, { deep: o.deep });
  await storeReport(d.redis, after);
  return { run, dryRun: false, before, items, plans: [], jobs, after, ok: !after.drifts.some(mine) };
}
