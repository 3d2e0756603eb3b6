import { comparedText, type ReconcileReport } from '../ops/reconcile-types.js';
import { clip, renderTable } from './table.js';

/** `reconcile` for a person: what was compared, each drift naming the record and the field, what it cost. */
export function renderReconcile(r: ReconcileReport): string {
  const out = [
    `Compared ${comparedText(r)} with the service (${r.streams.join(', ')}).`,
    `Cost: ${r.calls.collection} collection GETs, ${r.calls.get} entity GETs; ${(r.ms / 1000).toFixed(1)} s.`,
    '',
  ];
  if (r.drifts.length === 0) out.push('No drift: the service matches what was synced.');
  else {
    out.push(`${r.drifts.length} drift${r.drifts.length === 1 ? '' : 's'}:`);
    const rows = r.drifts.map((d) => [
      d.stream,
      d.key,
      d.kind,
      clip(d.field, 50),
      clip(d.service, 50),
      clip(d.synced, 50),
      clip(d.detail ?? d.url ?? '', 70),
    ]);
    out.push(renderTable(['STREAM', 'RECORD', 'DRIFT', 'FIELD', 'SERVICE HAS', 'SYNCED', 'DETAIL'], rows));
    out.push('', "See a record's jobs with: inventory-sync find <RECORD>");
  }
  if (r.unchecked.length) {
    out.push('', `Not compared (${r.unchecked.length}):`);
    for (const u of r.unchecked) out.push(`  ${u.stream} ${u.key}: ${u.reason}`);
  }
  return `${out.join('\n')}\n`;
}
