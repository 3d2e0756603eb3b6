import type { ImportResult } from '../feed/importer.js';
import type { StreamSummary, SyncSummary } from '../app/run-summary.js';
import type { FailedJobSummary } from '../queue/drain.js';
import { plural, pluralWas } from '../ops/state-words.js';
import { clip, renderTable } from './table.js';

/** Failures listed in full per list; the rest are counted, with where to see them. */
const LISTED = 50;

/** Columns shown only when some stream has one of them. */
const SOMETIMES: Array<[head: string, value: (x: StreamSummary) => number]> = [
  ['SYNCED BEFORE', (x) => x.syncedBefore],
  ['FAILED BEFORE', (x) => x.failedBefore.length],
  ['WAITING', (x) => x.waiting],
  ['NO JOB', (x) => x.missing],
];

/** A failed record's job (not an import batch, which is listed but holds records that never became jobs). */
const failedJobs = (x: StreamSummary) => x.failed.filter((f) => !f.batch).length;

/**
 * The end of `sync --once` and `import --process`, every figure from the run's own outcomes (run-summary.ts): per
 * stream its records and how each ended, what it skipped and why, then each failure; "Every record synced." only when
 * the exit code is 0.
 */
export function renderSyncSummary(s: SyncSummary, title: string): string {
  const streams = Object.entries(s.perStream);
  const out: string[] = [`${title} in ${(s.ms / 1000).toFixed(1)} s.`, ''];
  const extra = SOMETIMES.filter(([, value]) => streams.some(([, x]) => value(x) > 0));
  out.push(
    renderTable(
      ['STREAM', 'RECORDS', 'SYNCED', 'ALREADY MATCHED', 'SKIPPED', 'FAILED', ...extra.map(([head]) => head)],
      streams.map(([stream, x]) => [stream, x.records, x.synced, x.unchanged, x.skipped, failedJobs(x), ...extra.map(([, v]) => v(x))]),
    ),
  );
  const notes = streams.flatMap(([stream, x]) => streamNotes(stream, x));
  if (notes.length) out.push('', ...notes);
  const failed = streams.flatMap(([stream, x]) => x.failed.map((f) => ({ stream, ...f })));
  const before = streams.flatMap(([stream, x]) => x.failedBefore.map((f) => ({ stream, ...f })));
  if (failed.length) out.push('', `${plural(failed.length, 'record')} failed in this run:`, ...failureTable(failed));
  if (before.length)
    out.push(
      '',
      `${plural(before.length, 'record')} failed before this run and ${before.length === 1 ? 'was' : 'were'} not queued again ` +
        '(a record is queued once; a corrected record is a new job):',
      ...failureTable(before),
    );
  if (failed.length || before.length) out.push('', ...whatToDo([...failed, ...before]));
  else if (s.ok) out.push('', 'Every record synced.');
  return `${out.join('\n')}\n`;
}

/** Job ids a retry line names one by one; past it, `--all-failed`. */
const RETRY_IDS = 5;

/**
 * What to do about the failures, as commands that run as printed: see one; retry those a retry can help (after the
 * fix); and of records wrong in themselves, that no retry can help them (RECORD_HINT, src/errors/error-hints.ts).
 */
function whatToDo(failed: ReadonlyArray<FailedJobSummary & { stream: string }>): string[] {
  const out = [`See why: inventory-sync jobs show ${failed[0]!.id}`];
  const retried = failed.filter((f) => f.retryHelps !== false);
  const wrong = failed.length - retried.length;
  const streams = [...new Set(retried.map((f) => f.stream))];
  if (retried.length)
    out.push(
      'After fixing the cause: inventory-sync jobs retry ' +
        (retried.length <= RETRY_IDS
          ? retried.map((f) => f.id).join(' ')
          : `--all-failed${streams.length === 1 ? ` --stream ${streams[0]}` : ''}`),
    );
  if (wrong === 1)
    out.push(
      `${retried.length ? 'The other record is' : 'The record is'} wrong in itself: a retry cannot help. ` +
        'Fix it where it comes from and send it again (the feed, a push or an import): a corrected record is a new job.',
    );
  else if (wrong > 1)
    out.push(
      `${retried.length ? `The other ${wrong} records are` : 'These records are'} wrong in themselves: a retry cannot help. ` +
        'Fix them where they come from and send them again (the feed, a push or an import): a corrected record is a new job.',
    );
  return out;
}

/** The verb for a count: `is(1, 'was', 'were')` is "was". */
const is = (n: number, one: string, many: string) => (n === 1 ? one : many);

/** The lines about one stream under the table: what held it, what was skipped and why, what else the run finished. */
function streamNotes(stream: string, x: StreamSummary): string[] {
  const out: string[] = [];
  if (x.locked) out.push(`${stream}: another process was pulling this stream the whole time; nothing was pulled. Run again later.`);
  if (x.paused) {
    const why = clip(x.paused.reason ?? 'no reason recorded', 160);
    out.push(
      `${stream}: PAUSED since ${x.paused.since ?? '?'}: the account refused every job (${why}).`,
      `  ${plural(x.paused.waiting, 'job')} ${is(x.paused.waiting, 'waits', 'wait')}, none lost. ` +
        `Fix the cause, then: inventory-sync resume --stream ${stream}`,
    );
  }
  if (x.skipped) {
    const why = Object.entries(x.skippedWhy).map(([reason, n]) => `${n} ${reason}`);
    out.push(`${stream}: ${pluralWas(x.skipped, 'record')} skipped on purpose and not written: ${why.join('; ')}.`);
  }
  if (x.syncedBefore) out.push(`${stream}: ${pluralWas(x.syncedBefore, 'record')} synced before this run: nothing to do.`);
  const e = x.earlier;
  if (e.jobs)
    out.push(
      `${stream}: ${is(e.jobs, 'a job', `${e.jobs} jobs`)} queued before this run ${is(e.jobs, 'was', 'were')} finished by it ` +
        `(counted above): ${e.completed} completed, ${e.failed} failed.`,
    );
  if (x.missing)
    out.push(`${stream}: ${plural(x.missing, 'record')} of this run ${is(x.missing, 'has', 'have')} no job: its import batch failed.`);
  if (x.untracked)
    out.push(
      `${stream}: ${plural(x.untracked, 'more record')} past the first 1,000,000 of this run ${is(x.untracked, 'was', 'were')} ` +
        'queued, not followed to its end: see inventory-sync status.',
    );
  if (x.otherFailed)
    out.push(
      `${stream}: ${plural(x.otherFailed, 'other failed job')} from earlier runs ${is(x.otherFailed, 'remains', 'remain')}: ` +
        `inventory-sync jobs list --state failed --stream ${stream}`,
    );
  return out;
}

/** Up to LISTED failures as a table, and how many more there are. */
function failureTable(failed: Array<FailedJobSummary & { stream: string }>): string[] {
  const shown = failed.slice(0, LISTED);
  const out = [
    renderTable(
      ['STREAM', 'RECORD', 'REASON', 'JOB'],
      shown.map((f) => [f.stream, f.batch ? `import batch, ${f.key}` : f.key, clip(f.reason, 100), f.id]),
    ),
  ];
  if (failed.length > shown.length)
    out.push(`... and ${failed.length - shown.length} more: inventory-sync jobs list --state failed --stream <STREAM>`);
  return out;
}

/** The import's first line: how many records the file held and what became of each at the queue. */
export function renderImport(r: ImportResult, stream: string, o: { processed: boolean }): string {
  const before = r.duplicates - r.repeated;
  const parts = [`${r.queued} new`, `${before} already queued before`, ...(r.repeated ? [`${r.repeated} repeated in the file`] : [])];
  const lines = [
    `Imported ${plural(r.records, 'record')} of ${stream} in ${(r.ms / 1000).toFixed(1)} s: ${parts.join(', ')}` +
      `${r.invalid ? `; ${plural(r.invalid, 'invalid record')} among them` : ''}.`,
  ];
  if (r.invalid && !o.processed)
    lines.push(
      `The ${plural(r.invalid, 'invalid record')} ${r.invalid === 1 ? 'fails' : 'fail'} as soon as a worker takes ` +
        `${r.invalid === 1 ? 'it' : 'them'}; see: inventory-sync jobs list --state failed --stream ${stream}`,
    );
  return `${lines.join('\n')}\n`;
}
