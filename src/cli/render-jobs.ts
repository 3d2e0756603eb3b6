import { BAD_BATCH } from '../queue/intake.js';
import type { JobStory, JobSummary } from '../ops/job-inspect.js';
import type { RetryOutcome } from '../ops/job-retry.js';
import { clip, renderTable } from './table.js';
import { shortDateTime } from '../time/date-format.js';
import { attemptsText } from '../ops/state-words.js';
import { attemptEndWord } from '../queue/lease/lease-words.js';

/** `jobs list` for a person. */
export function renderJobList(jobs: JobSummary[]): string {
  if (jobs.length === 0) return 'No jobs in those states.\n';
  const rows = jobs.map((j) => [
    j.id,
    j.stream,
    j.state,
    j.key,
    j.attemptsMade,
    shortDateTime(j.finishedAt ?? j.createdAt),
    j.reason ? clip(`[${j.reason.code}] ${j.reason.message}`, 90) : clip(j.summary ?? j.outcome, 90),
  ]);
  const failed = jobs.filter((j) => j.state === 'failed').length;
  const batches = jobs.filter((j) => j.batch).length;
  const notes = [
    batches
      ? `${batches} import batch${batches === 1 ? '' : 'es'} (intake-…): ` +
        'records not yet jobs; a worker turns each batch into one job per record.'
      : '',
    failed ? `${failed} failed. See one with: inventory-sync jobs show <ID>; retry with: inventory-sync jobs retry <ID>` : '',
  ].filter(Boolean);
  const tail = notes.length ? `\n${notes.join('\n')}\n` : '\n';
  return `${renderTable(['ID', 'STREAM', 'STATE', 'KEY', 'ATTEMPTS', 'WHEN (UTC)', 'REASON / RESULT'], rows)}\n${tail}`;
}

function indent(text: string, by = '    '): string {
  return text
    .split('\n')
    .map((l) => (l ? by + l : l))
    .join('\n');
}

/** The upstream payload a record came from (a transform made or refused it), as `jobs show` and `find` print it. */
export function renderUpstream(u: NonNullable<JobStory['upstream']>): string[] {
  const text = u.cut ? `${String(u.payload)}… (cut)` : JSON.stringify(u.payload, null, 2);
  return [`Upstream payload ${u.id} (before its transform):`, indent(text)];
}

/** `jobs show` for a person: the record, each attempt with its calls, the error and what to do. */
export function renderJobStory(s: JobStory): string {
  const out: string[] = [];
  out.push(`Job ${s.id}`);
  out.push(`  stream:    ${s.stream}`);
  out.push(`  key:       ${s.key ?? '(none)'}`);
  out.push(`  state:     ${s.state}`);
  out.push(`  source:    ${s.source ?? '-'}`);
  out.push(`  queued:    ${s.createdAt}`);
  if (s.finishedAt) out.push(`  finished:  ${s.finishedAt}`);
  out.push(`  attempts:  ${attemptsText(s.state, s.attemptsMade, s.maxAttempts)}`);
  if (s.waitsFor) out.push(`  waiting:   ${s.waitsFor.text}; goes on by itself once it exists (no attempt spent)`);
  if (s.batch) {
    const b = s.batch;
    out.push('', 'Import batch (its records are not jobs yet; a worker turns it into one job per record):');
    out.push(`  records:   ${b.records ?? 'unreadable'}`);
    out.push(`  lines:     ${b.firstLine ?? '?'}-${b.lastLine ?? '?'}`);
    if (b.firstRecordIds.length)
      out.push(`  first jobs: ${b.firstRecordIds.join(', ')}${b.records !== null && b.records > b.firstRecordIds.length ? ', …' : ''}`);
  } else {
    out.push('', 'Record:', indent(JSON.stringify(s.record, null, 2)));
    if (s.upstream) out.push('', ...renderUpstream(s.upstream));
  }
  // Batches leave no attempt traces: their attempts are counted above.
  if (!s.batch || s.attempts.length) out.push('', s.attempts.length ? 'Attempts:' : 'Attempts: none yet');
  for (const a of s.attempts) {
    const end = a.error ? `failed [${a.error.code}]` : attemptEndWord(a);
    out.push(`  #${a.attempt}  ${a.startedAt}  ${a.ms ?? '?'} ms  ${end}`);
    if (a.calls.length) {
      const rows = a.calls.map((c) => [
        c.method,
        c.path,
        c.status ?? 'no answer',
        `${c.ms} ms`,
        c.waitedMs ? `waited ${c.waitedMs} ms` : '',
        c.error ?? '',
      ]);
      out.push(indent(renderTable(['METHOD', 'PATH', 'STATUS', 'TIME', 'BUDGET', 'ERROR'], rows), '      '));
    } else out.push('      no API calls');
    for (const n of a.notes) out.push(`      note ${n.at}: ${n.message}${n.data ? ` ${JSON.stringify(n.data)}` : ''}`);
    if (a.result) out.push(`      result: ${a.result.summary}`);
    if (a.error) out.push(`      error: [${a.error.code}] ${a.error.message}`);
  }
  for (const l of s.otherLogs) out.push(`  log: ${l}`);
  if (s.error) {
    out.push('', `Error: [${s.error.code}] ${s.error.message}`);
    if (s.error.hint) out.push(`What to do: ${s.error.hint}`);
    // A batch that is no batch fails again however often it is retried; a failure a newer version superseded is history.
    if (s.supersededBy) out.push(`Superseded: ${s.supersededBy}, a newer version of this record, synced since; nothing to retry.`);
    else if (s.state === 'failed' && s.error.code !== BAD_BATCH && s.error.retryHelps !== false)
      out.push(`Then: inventory-sync jobs retry ${s.id}`);
  } else if (s.state === 'completed') {
    const r = s.result as { outcome?: string; summary?: string } | null;
    out.push('', `Result: ${r?.outcome ?? 'done'}${r?.summary ? `: ${r.summary}` : ''}`);
  }
  return `${out.join('\n')}\n`;
}

export function renderRetry(r: RetryOutcome): string {
  const lines = [`Retried ${r.retried.length} job${r.retried.length === 1 ? '' : 's'}.`];
  for (const j of r.retried) lines.push(`  ${j.id}`);
  if (r.refused.length) {
    lines.push(`Could not retry ${r.refused.length}:`);
    for (const j of r.refused) lines.push(`  ${j.id}: ${j.reason}`);
  }
  if (r.superseded.length) {
    lines.push(`Left ${r.superseded.length} failed before a newer version of their record synced (history, nothing to retry):`);
    for (const j of r.superseded) lines.push(`  ${j.id}: superseded by ${j.by}`);
  }
  if (r.waiting.length) {
    lines.push(`${r.waiting.length} wait for what the service lacks (not failed, no attempt spent); the catalog is looked at now:`);
    for (const j of r.waiting) lines.push(`  ${j.id}: waits for ${j.waitsFor}`);
  }
  return `${lines.join('\n')}\n`;
}
