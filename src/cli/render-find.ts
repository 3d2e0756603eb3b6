import type { FindResult } from '../ops/find.js';
import { clip, renderTable } from './table.js';
import { shortDateTime } from '../time/date-format.js';
import { renderUpstream } from './render-jobs.js';
import { attemptsText, versionText } from '../ops/state-words.js';
import { fenceNotes } from '../queue/lease/lease-words.js';

/** `find` for a person: the key's jobs (each version), the service entities it made, and its progress. */
export function renderFind(r: FindResult): string {
  const out: string[] = [`Key ${r.key} (prefix ${r.prefix})`, ''];
  const rows = r.jobs.map((j) => [
    j.id,
    j.stream,
    versionText(j.version, j.standing),
    j.state,
    attemptsText(j.state, j.attemptsMade, j.maxAttempts),
    j.attempts.reduce((n, a) => n + a.calls.length, 0),
    shortDateTime(j.finishedAt ?? j.createdAt),
    j.waitsFor
      ? clip(j.waitsFor.text, 80)
      : j.error
        ? clip(`[${j.error.code}] ${j.error.message}`, 80)
        : clip(j.summary ?? (j.result as { summary?: string } | null)?.summary ?? '', 80),
  ]);
  out.push(`Jobs (${r.jobs.length}):`);
  out.push(
    r.jobs.length
      ? renderTable(['JOB', 'STREAM', 'VERSION', 'STATE', 'ATTEMPTS', 'CALLS', 'WHEN (UTC)', 'RESULT / ERROR'], rows)
      : '  none kept (completed jobs are kept 7 days)',
  );
  const waiting = r.jobs.filter((j) => j.waitsFor);
  if (waiting.length)
    out.push(
      '',
      'Waiting (no attempt spent; each goes on by itself once what it waits for exists; `inventory-sync catalog refresh` looks now):',
      ...waiting.map((j) => `  ${j.id}: ${j.waitsFor!.text}`),
    );
  // The fence's notes (src/queue/lease/): a write abandoned for a lost lease, an intent settled by reading.
  const fenced = r.jobs.flatMap((j) => j.attempts.flatMap((a) => fenceNotes(a.notes).map((m) => `  ${j.id} #${a.attempt}: ${m}`)));
  if (fenced.length) out.push('', 'Fence:', ...fenced);
  out.push('', `Service entities (${r.entities.length}):`);
  out.push(
    r.entities.length
      ? renderTable(
          ['KIND', 'URL', 'KNOWN FROM'],
          r.entities.map((e) => [e.kind, e.url, e.source]),
        )
      : '  none recorded',
  );
  if (r.mapped.length) {
    out.push('', 'Mapped names (MAPPING_FILE, upstream → service):');
    out.push(
      renderTable(
        ['KIND', 'UPSTREAM', 'SERVICE'],
        r.mapped.map((m) => [m.kind, m.upstream, `→ ${m.service}`]),
      ),
    );
  }
  // What the upstream sent, beside the records a transform made of it (or refused).
  for (const j of r.jobs) if (j.upstream) out.push('', `Job ${j.id}:`, ...renderUpstream(j.upstream));
  for (const line of r.progressLines) out.push('', line);
  for (const t of r.sections ?? [])
    out.push(
      '',
      `${t.title}:`,
      t.rows.length
        ? renderTable(
            t.head.map((h) => h.toUpperCase()),
            t.rows.map((row) => row.map((c, i) => (i === row.length - 1 ? clip(c, 100) : c))),
          )
        : '  none',
    );
  // A retry only where one can help: not for a failure a newer version superseded (history), nor for a record wrong
  // in itself (its job's story says so).
  const failed = r.jobs.find((j) => j.state === 'failed' && !j.supersededBy && j.error?.retryHelps !== false);
  out.push(
    '',
    `Each job's whole story: inventory-sync jobs show <JOB>${failed ? `; retry with: inventory-sync jobs retry ${failed.id}` : ''}`,
  );
  return `${out.join('\n')}\n`;
}
