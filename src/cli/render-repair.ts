import { plural } from '../ops/state-words.js';
import type { JobEnd, RepairReport } from '../ops/repair-report.js';
import type { ResyncReport } from '../app/resync.js';
import type { RecordPlan } from '../queue/record-plan.js';
import { renderReconcile } from './render-reconcile.js';
import { clip, renderTable } from './table.js';

const ACTION = { repair: 'REPAIR', 'by-hand': 'BY HAND', skipped: 'SKIPPED' } as const;

/** Each planned job's calls, as the dry run shows them. */
function planLines(plans: RecordPlan[]): string[] {
  const out: string[] = [];
  for (const p of plans) {
    out.push(`  ${p.stream} ${p.key} (job ${p.jobId ?? '?'}): ${p.summary}`);
    for (const c of p.calls) out.push(`      ${c.method} ${c.path}  (${c.what})`, `         ${clip(JSON.stringify(c.body), 300)}`);
    if (p.reads.length) out.push(`      reads: ${p.reads.map((r) => `${r.method} ${r.path}`).join(', ')}`);
    if (p.error?.hint) out.push(`      what to do: ${p.error.hint}`);
  }
  return out;
}

function jobLines(jobs: JobEnd[]): string[] {
  return jobs.map((j) =>
    j.state === 'completed'
      ? `  ${j.jobId}: ${j.outcome} - ${j.summary ?? ''}`
      : `  ${j.jobId}: ${j.state}${j.error ? ` - ${j.error}` : ''} (inventory-sync jobs show ${j.jobId})`,
  );
}

/** `reconcile --repair` for a person: the drifts, each with its repair (or who fixes it), the calls or the results. */
export function renderRepair(r: RepairReport): string {
  const out = [renderReconcile(r.before).trimEnd(), ''];
  if (!r.items.length) return `${out.join('\n')}\nNothing to repair.\n`;
  out.push(r.dryRun ? 'Repairs planned (dry run: nothing was written):' : 'Repairs:');
  out.push(
    renderTable(
      ['STREAM', 'RECORD', 'DRIFT', 'ACTION', 'WHAT', 'RESULT'],
      r.items.map((i) => [
        i.stream,
        i.key,
        i.kind,
        ACTION[i.action],
        clip(i.what, 110),
        i.result ? `${i.result}${i.error ? `: ${clip(i.error, 80)}` : ''}` : '',
      ]),
    ),
  );
  if (r.dryRun) {
    out.push('', 'Every call the repairs would make:', ...(r.plans.length ? planLines(r.plans) : ['  none']));
  } else {
    out.push('', `Repair jobs (run ${r.run}):`, ...(r.jobs.length ? jobLines(r.jobs) : ['  none']));
  }
  const n = (a: string) => r.items.filter((i) => i.action === a).length;
  out.push('', `${r.dryRun ? 'Would repair' : 'Repaired'} ${n('repair')}; left to a person ${n('by-hand')}; skipped ${n('skipped')}.`);
  if (r.after)
    out.push(
      r.after.ok
        ? 'Reconcile after the repairs: no drift.'
        : `Reconcile after the repairs: ${plural(r.after.drifts.length, 'drift')} left.`,
    );
  return `${out.join('\n')}\n`;
}

/** `resync` for a person: each key, the version sent again, its plan or how its job ended. */
export function renderResync(r: ResyncReport): string {
  const out: string[] = [];
  if (r.dryRun) out.push('Dry run: nothing was written to the service, no job was queued.', '');
  for (const t of r.targets) out.push(`${t.stream} ${t.key}: the version of job ${t.from} sent again as ${t.jobId}`);
  for (const u of r.unusable)
    out.push(
      `${u.stream} ${u.key}: not sent again: its only kept job, ${u.jobId} (${u.state}), holds a record that cannot be sent as it is ` +
        `(${u.why}). Fix the record where it comes from and send it again (the feed, a push or inventory-sync import); ` +
        `inventory-sync jobs show ${u.jobId} shows it`,
    );
  for (const k of r.notFound) out.push(`${k}: no recorded version (no job of it is kept; see inventory-sync find ${k})`);
  out.push('');
  if (r.dryRun) out.push('Plans, from the service as it is now:', ...planLines(r.plans));
  else out.push('Jobs:', ...jobLines(r.jobs));
  return `${out.join('\n')}\n`;
}
