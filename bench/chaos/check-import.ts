import { countsLine, EXIT_UNREACHABLE, type ImportRun } from './chaos-import.js';
import { check, type CheckResult } from './check-types.js';
import type { ImportPlan } from './import-plan.js';

/** What a run's counts must say about the file, whatever was queued before: every line counted, invalid as planned. */
function countsMatchFile(plan: ImportPlan, run: ImportRun, label: string): string[] {
  const c = run.counts;
  if (!c) return [`${label}: no counts in what it printed (see import-N.json)`];
  const v: string[] = [];
  const records = plan.lines.length;
  if (c.records !== records) v.push(`${label}: ${c.records} records counted, the file has ${records}`);
  if (c.queued + c.duplicates !== c.records) v.push(`${label}: queued ${c.queued} + duplicates ${c.duplicates} != records ${c.records}`);
  if (c.invalid !== plan.invalid) v.push(`${label}: ${c.invalid} invalid, expected ${plan.invalid}`);
  if (c.malformed !== plan.malformed) v.push(`${label}: ${c.malformed} lines not JSON, expected ${plan.malformed}`);
  if (c.duplicates < plan.repeats) v.push(`${label}: ${c.duplicates} duplicates, but ${plan.repeats} line(s) repeat an earlier one`);
  if (c.batches > c.queued || (c.queued > 0 && c.batches === 0)) v.push(`${label}: ${c.batches} batch(es) for ${c.queued} queued records`);
  return v;
}

/**
 * The import during the storm: it ends with exit 0 (runs before it may end with 3, Redis unreachable during its
 * restart, and are run again) and its counts match the file. The same file imported again once everything has
 * drained: exit 0, nothing queued (every record a duplicate), no batch written.
 */
export function checkImports(plan: ImportPlan, runs: ImportRun[]): CheckResult[] {
  const storm = runs.filter((r) => r.phase === 'storm');
  const stormV: string[] = [];
  if (storm.length === 0) stormV.push('the import never ran');
  storm.forEach((r, i) => {
    const label = `import run ${i + 1} (at ${Math.round(r.progress * 100)}%)`;
    const last = i === storm.length - 1;
    if (r.code === 0) stormV.push(...countsMatchFile(plan, r, label));
    else if (r.code !== EXIT_UNREACHABLE || last)
      stormV.push(`${label}: exit ${r.code}, expected 0${last ? '' : ` (or ${EXIT_UNREACHABLE}, Redis unreachable, then run again)`}`);
  });

  const again = runs.filter((r) => r.phase === 'again');
  const againV: string[] = [];
  if (again.length === 0) againV.push('the file was not imported again');
  again.forEach((r, i) => {
    const label = `import again ${i + 1}`;
    if (r.code !== 0) {
      againV.push(`${label}: exit ${r.code}, expected 0`);
      return;
    }
    againV.push(...countsMatchFile(plan, r, label));
    if (r.counts && (r.counts.queued !== 0 || r.counts.batches !== 0))
      againV.push(`${label}: ${countsLine(r.counts)}; expected nothing queued, every record a duplicate`);
  });
  return [
    check('the import (`import orders FILE` during the storm) exits 0, its counts match the file', storm.length, stormV),
    check('the same file imported again once drained: exit 0, nothing queued, every record a duplicate', again.length, againV),
  ];
}
