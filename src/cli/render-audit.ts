import type { AuditRow } from '../ops/audit.js';
import { renderTable } from './table.js';

export const AUDIT_COLUMNS = ['at', 'stream', 'key', 'jobId', 'method', 'path', 'status', 'entityUrl'] as const;

function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** RFC 4180 CSV with a header row. */
export function auditCsv(rows: AuditRow[]): string {
  const lines = [AUDIT_COLUMNS.join(','), ...rows.map((r) => AUDIT_COLUMNS.map((c) => csvCell(r[c])).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}

/** One JSON object per line. */
export function auditNdjson(rows: AuditRow[]): string {
  return rows.map((r) => `${JSON.stringify(r)}\n`).join('');
}

/** For people: a table, and what it covers. */
export function auditTable(rows: AuditRow[]): string {
  const table = renderTable(
    ['TIME', 'STREAM', 'KEY', 'JOB', 'METHOD', 'PATH', 'STATUS', 'ENTITY'],
    rows.map((r) => [r.at, r.stream, r.key ?? '', r.jobId, r.method, r.path, r.status ?? 'no answer', r.entityUrl ?? '']),
  );
  return (
    `${rows.length} write${rows.length === 1 ? '' : 's'} to the service, from the jobs kept ` +
    '(completed ones 7 days; see docs/investigating.md, "Audit").\n' +
    (rows.length ? `${table}\n` : '')
  );
}
