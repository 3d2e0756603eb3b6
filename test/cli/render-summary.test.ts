import { describe, expect, it } from 'vitest';
import { streamOk, type StreamSummary, type SyncSummary } from '../../src/app/run-summary.js';
import { renderSyncSummary } from '../../src/cli/render-summary.js';

/** A small seeded generator, so a failing case can be run again. */
function random(seed: number) {
  let s = seed >>> 0;
  return (max: number) => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s % (max + 1);
  };
}

/** Failures of a stream, `n` of them (ids and keys its own); with `wrong`, records wrong in themselves (no retry helps). */
const failures = (stream: string, what: string, n: number, wrong = false) =>
  Array.from({ length: n }, (_, i) => ({
    id: `${stream}-${what}-${i}`,
    key: `${what.toUpperCase()}-${i}`,
    reason: `[BAD_RECORD] record ${i}: bad`,
    ...(wrong ? { retryHelps: false as const } : {}),
  }));

/** A summary of any shape: each figure 0, 1 or more, holds and notes or none. */
function anySummary(seed: number): SyncSummary {
  const n = random(seed);
  const count = () => [0, 1, 2, 7, 60][n(4)]!;
  const perStream: Record<string, StreamSummary> = {};
  for (const stream of ['orders', 'stock-counts'].slice(0, 1 + n(1))) {
    const synced = count();
    const unchanged = count();
    const skipped = count();
    const earlierJobs = n(1) ? count() : 0;
    const earlierFailed = Math.min(earlierJobs, n(1));
    const failed = [...failures(stream, 'now', count(), n(1) === 0), ...failures(stream, 'earlier', earlierFailed)];
    const failedBefore = failures(stream, 'before', count(), n(1) === 0);
    const [syncedBefore, waiting, missing, untracked, otherFailed, repeated] = [
      count(),
      n(2) ? 0 : count(),
      n(3) ? 0 : count(),
      n(4) ? 0 : count(),
      count(),
      count(),
    ];
    const records = synced + unchanged + skipped + failed.length + syncedBefore + failedBefore.length + waiting + missing;
    perStream[stream] = {
      queued: count(),
      duplicates: repeated + count(),
      invalid: count(),
      records,
      repeated,
      completed: synced + unchanged + skipped,
      synced,
      unchanged,
      skipped,
      skippedWhy: skipped
        ? n(1)
          ? { 'before go-live (SYNC_ORDERS_SINCE 2026-02-01)': skipped }
          : { 'one reason': 1, [`${skipped - 1} others`]: skipped - 1 }
        : {},
      failed,
      syncedBefore,
      failedBefore,
      waiting,
      missing,
      untracked,
      earlier: { jobs: earlierJobs, completed: earlierJobs - earlierFailed, failed: earlierFailed },
      otherFailed,
      ...(n(5) === 0 ? { locked: true } : {}),
      ...(n(5) === 0 ? { paused: { since: '2026-11-22T04:20:00.000Z', reason: '[FORBIDDEN] refused', waiting: count() } } : {}),
    };
  }
  return { perStream, ok: Object.values(perStream).every(streamOk), ms: 1234 };
}

const noun = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const was = (n: number) => (n === 1 ? 'was' : 'were');

/**
 * Every line a summary may print, each as a pattern over its figures (for a stream `x`), with its plural forms: a line
 * of the output that none of them is, or is with other figures, fails.
 */
function expectedLines(s: SyncSummary): string[] {
  const out = [`Synced in 1.2 s.`];
  for (const [stream, x] of Object.entries(s.perStream)) {
    if (x.locked) out.push(`${stream}: another process was pulling this stream the whole time; nothing was pulled. Run again later.`);
    if (x.paused) {
      out.push(`${stream}: PAUSED since ${x.paused.since}: the account refused every job (${x.paused.reason}).`);
      out.push(
        `  ${noun(x.paused.waiting, 'job')} ${x.paused.waiting === 1 ? 'waits' : 'wait'}, none lost. Fix the cause, then: inventory-sync resume --stream ${stream}`,
      );
    }
    if (x.skipped) {
      const why = Object.entries(x.skippedWhy)
        .map(([r, n]) => `${n} ${r}`)
        .join('; ');
      out.push(`${stream}: ${noun(x.skipped, 'record')} ${was(x.skipped)} skipped on purpose and not written: ${why}.`);
    }
    if (x.syncedBefore)
      out.push(`${stream}: ${noun(x.syncedBefore, 'record')} ${was(x.syncedBefore)} synced before this run: nothing to do.`);
    if (x.earlier.jobs)
      out.push(
        `${stream}: ${x.earlier.jobs === 1 ? 'a job' : `${x.earlier.jobs} jobs`} queued before this run ${was(x.earlier.jobs)} finished by it ` +
          `(counted above): ${x.earlier.completed} completed, ${x.earlier.failed} failed.`,
      );
    if (x.missing)
      out.push(`${stream}: ${noun(x.missing, 'record')} of this run ${x.missing === 1 ? 'has' : 'have'} no job: its import batch failed.`);
    if (x.untracked)
      out.push(
        `${stream}: ${noun(x.untracked, 'more record')} past the first 1,000,000 of this run ${was(x.untracked)} queued, not followed to its end: see inventory-sync status.`,
      );
    if (x.otherFailed)
      out.push(
        `${stream}: ${noun(x.otherFailed, 'other failed job')} from earlier runs ${x.otherFailed === 1 ? 'remains' : 'remain'}: ` +
          `inventory-sync jobs list --state failed --stream ${stream}`,
      );
  }
  const failed = Object.entries(s.perStream).flatMap(([stream, x]) => x.failed.map((f) => ({ stream, ...f })));
  const before = Object.entries(s.perStream).flatMap(([stream, x]) => x.failedBefore.map((f) => ({ stream, ...f })));
  if (failed.length) out.push(`${noun(failed.length, 'record')} failed in this run:`);
  if (before.length)
    out.push(
      `${noun(before.length, 'record')} failed before this run and ${was(before.length)} not queued again (a record is queued once; a corrected record is a new job):`,
    );
  const all = [...failed, ...before];
  if (all.length) {
    // Every command concrete: the first failure's job to see, the jobs a retry can help by id (or --all-failed past 5).
    out.push(`See why: inventory-sync jobs show ${all[0]!.id}`);
    const retried = all.filter((f) => f.retryHelps !== false);
    const streams = new Set(retried.map((f) => f.stream));
    if (retried.length)
      out.push(
        `After fixing the cause: inventory-sync jobs retry ${
          retried.length <= 5
            ? retried.map((f) => f.id).join(' ')
            : `--all-failed${streams.size === 1 ? ` --stream ${[...streams][0]}` : ''}`
        }`,
      );
    const wrong = all.length - retried.length;
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
  } else if (s.ok) out.push('Every record synced.');
  return out;
}

describe('the summary of sync --once and import --process', () => {
  it('holds every line to the run’s figures, with plurals right, over 150 summaries of every shape', () => {
    for (let seed = 1; seed <= 150; seed++) {
      const s = anySummary(seed);
      const text = renderSyncSummary(s, 'Synced');
      const lines = text.split('\n');
      const expected = expectedLines(s);
      const tables = new Set<number>();
      // The per-stream table: its head, and a row per stream whose columns are the stream's figures.
      const head = lines.findIndex((l) => /^STREAM\s+RECORDS\s/.test(l));
      const heads = lines[head]!.split(/\s{2,}/);
      for (const [i, [stream, x]] of Object.entries(s.perStream).entries()) {
        const row = Object.fromEntries(heads.map((h, j) => [h, lines[head + 1 + i]!.split(/\s{2,}/)[j]]));
        const jobsFailed = x.failed.filter((f) => !f.batch).length;
        expect(row, `seed ${seed}`).toMatchObject({
          STREAM: stream,
          RECORDS: String(x.records),
          SYNCED: String(x.synced),
          'ALREADY MATCHED': String(x.unchanged),
          SKIPPED: String(x.skipped),
          FAILED: String(jobsFailed),
        });
        for (const [h, v] of [
          ['SYNCED BEFORE', x.syncedBefore],
          ['FAILED BEFORE', x.failedBefore.length],
          ['WAITING', x.waiting],
          ['NO JOB', x.missing],
        ] as const) {
          if (heads.includes(h)) expect(row[h], `seed ${seed} ${h}`).toBe(String(v));
        }
        tables.add(head).add(head + 1 + i);
      }
      // Each failure list: its rows are the failures, in order, then at most 50 and a count of the rest.
      for (const [heading, list] of [
        ['failed in this run:', Object.entries(s.perStream).flatMap(([st, x]) => x.failed.map((f) => ({ st, ...f })))],
        ['failed before this run', Object.entries(s.perStream).flatMap(([st, x]) => x.failedBefore.map((f) => ({ st, ...f })))],
      ] as const) {
        const at = lines.findIndex((l) => l.includes(heading));
        if (!list.length) {
          expect(at, `seed ${seed}: no "${heading}"`).toBe(-1);
          continue;
        }
        tables.add(at + 1);
        list.slice(0, 50).forEach((f, i) => {
          expect(lines[at + 2 + i], `seed ${seed}`).toMatch(new RegExp(`^${f.st}\\s+${f.key}\\s+.*\\s${f.id}$`));
          tables.add(at + 2 + i);
        });
        if (list.length > 50) {
          expect(lines[at + 52]).toBe(`... and ${list.length - 50} more: inventory-sync jobs list --state failed --stream <STREAM>`);
          tables.add(at + 52);
        }
      }
      const rest = lines.filter((l, i) => l !== '' && !tables.has(i));
      expect(rest, `seed ${seed}`).toEqual(expected);
      expect(text.includes('Every record synced.'), `seed ${seed}`).toBe(s.ok);
    }
  });
});
