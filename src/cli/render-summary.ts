import type { ImportResult } from '../feed/importer.js';
import type { SyncSummary } from '../app/runtime.js';
import { clip, renderTable } from './table.js';

/** The end of `sync --once` and `import --process`: per stream what was queued and how it ended, every failure listed. */
export function renderSyncSummary(s: SyncSummary, title: string): string {
  const streams = Object.entries(s.perStream);
  const out: string[] = [`${title} in ${(s.ms / 1000).toFixed(1)} s.`, ''];
  out.push(
    renderTable(
      // SKIPPED (of the completed, those left alone on purpose) last, so the columns before it keep their places.
      ['STREAM', 'QUEUED', 'RE-DELIVERED', 'INVALID', 'COMPLETED', 'FAILED', 'SKIPPED'],
      streams.map(([stream, x]) => [stream, x.queued, x.duplicates, x.invalid, x.completed, x.failed.length, x.skipped]),
    ),
  );
  for (const [stream, x] of streams) {
    if (x.locked) out.push('', `${stream}: another process was pulling this stream the whole time; nothing was pulled. Run again later.`);
    if (x.paused) {
      out.push(
        '',
        `${stream}: PAUSED since ${x.paused.since ?? '?'}: ` +
          `the account refused every job (${clip(x.paused.reason ?? 'no reason recorded', 160)}).`,
      );
      out.push(`  ${x.paused.waiting} job(s) wait, none lost. Fix the cause, then: inventory-sync resume --stream ${stream}`);
    }
  }
  const skipped = streams.reduce((n, [, x]) => n + x.skipped, 0);
  if (skipped) {
    out.push(
      '',
      `${skipped} completed record${skipped === 1 ? ' was' : 's were'} skipped on purpose and not written ` +
        '(before go-live, or superseded by a newer count); inventory-sync find <key> says why.',
    );
  }
  const failed = streams.flatMap(([stream, x]) => x.failed.map((f) => ({ stream, ...f })));
  if (failed.length) {
    out.push('', `${failed.length} record${failed.length === 1 ? '' : 's'} failed:`);
    out.push(
      renderTable(
        ['STREAM', 'RECORD', 'REASON', 'JOB'],
        failed.map((f) => [f.stream, f.key, clip(f.reason, 100), f.id]),
      ),
    );
    out.push('', 'See why: inventory-sync jobs show <JOB>. After fixing the cause: inventory-sync jobs retry <JOB> (or --all-failed).');
  } else if (streams.every(([, x]) => !x.locked && !x.paused)) out.push('', 'Every record synced.');
  return `${out.join('\n')}\n`;
}

export function renderImport(r: ImportResult, stream: string): string {
  const lines = [
    `Imported ${r.records} record${r.records === 1 ? '' : 's'} of ${stream} in ${(r.ms / 1000).toFixed(1)} s: ` +
      `${r.queued} queued, ${r.duplicates} already queued before, ${r.invalid} invalid.`,
  ];
  if (r.invalid)
    lines.push(
      `The ${r.invalid} invalid record(s) fail as soon as a worker takes them; ` +
        `see: inventory-sync jobs list --state failed --stream ${stream}`,
    );
  return `${lines.join('\n')}\n`;
}
