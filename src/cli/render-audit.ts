import type { AuditRow } from '../ops/audit.js';
import { renderTable } from './table.js';

export const AUDIT_COLUMNS = ['at', 'stream', 'key', 'jobId', 'method', 'path', 'status', 'entityUrl'] as const;

function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** RFC 4180 CSV with a header row; `account`: the rows of several accounts, each naming its own in a first column. */
export function auditCsv(rows: Array<AuditRow & { account?: string }>, o: { account?: boolean } = {}): string {
  const columns = o.account ? (['account', ...AUDIT_COLUMNS] as const) : AUDIT_COLUMNS;
  const lines = [columns.join(','), ...rows.map((r) => columns.map((c) => csvCell(r[c])).join(','))];
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
