import type { DryRunPlan, SourceRead } from '../app/dry-run.js';
import type { PlannedCall, RecordPlan } from '../queue/record-plan.js';
import { clip, renderTable } from './table.js';

/** Longest body shown in full; `--json` has every body whole. */
const BODY_CHARS = 400;

const OUTCOME: Record<RecordPlan['outcome'], string> = {
  writes: 'WRITES',
  unchanged: 'NO CALL',
  skipped: 'SKIPPED',
  fails: 'FAILS',
  duplicate: 'AGAIN',
};

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function sourceLine(s: SourceRead): string {
  if (s.from === 'file') return `${s.stream}: ${plural(s.records, 'record')} from ${s.file ?? 'stdin'}`;
  if (s.from === 'jobs') return `${s.stream}: ${plural(s.records, 'record')} as recorded, planned from the service's state`;
  if (s.from === 'queue') {
    const what = 'queued before this run (pushed, imported or retried), as its workers would take them';
    return `${s.stream}: ${plural(s.records, 'record')} ${what}`;
  }
  if (s.from === 'store')
    return (
      `${s.stream}: ${plural(s.records, 'record')} in ${plural(s.pages ?? 0, 'page')} of the store, updated since ${s.since ?? '?'}; ` +
      "the pull's cursor is neither read nor moved"
    );
  const from = s.cursor ? `after the stored cursor ${s.cursor}` : "from the stream's start (no cursor stored)";
  return `${s.stream}: ${plural(s.records, 'record')} in ${plural(s.pages ?? 0, 'page')} of the feed, read ${from}; the cursor stays there`;
}

function indent(text: string, by: string): string {
  return text
    .split('\n')
    .map((l) => (l ? by + l : l))
    .join('\n');
}

function callLines(c: PlannedCall): string[] {
  const body = JSON.stringify(c.body);
  const shown = body.length > BODY_CHARS ? `${body.slice(0, BODY_CHARS - 1)}… (--json shows it whole)` : body;
  return [`${c.method} ${c.path}  (${c.what})`, `     ${shown}`];
}

type Row = Record<string, unknown>;
const rows = (v: unknown): Row[] | undefined => (Array.isArray(v) && v.every((x) => x && typeof x === 'object') ? (v as Row[]) : undefined);
const bill = (items: Row[]) => (items.length ? items.map((i) => `${String(i.productId)} x${String(i.quantity)}`).join(', ') : 'none');

/** Kind-specific facts worth reading: a count's lines as a table, a BOM's bill before and after. */
function detailLines(details: Record<string, unknown> | undefined): string[] {
  if (!details) return [];
  const lines = rows(details.lines);
  if (lines?.every((l) => 'onHand' in l && 'counted' in l)) {
    const table = renderTable(
      ['PRODUCT', 'ON HAND', 'COUNTED', 'VARIANCE'],
      lines.map((l) => [
        String(l.productId),
        Number(l.onHand),
        Number(l.counted),
        l.leftTo ? `left to ${String(l.leftTo)}` : Number(l.quantityOnHandVar) === 0 ? '0 (matches)' : Number(l.quantityOnHandVar),
      ]),
    );
    return table.split('\n');
  }
  const current = rows(details.current);
  const wanted = rows(details.wanted);
  if (current && wanted) return [`bill now: ${bill(current)}`, `bill wanted: ${bill(wanted)}`];
  return [];
}

function recordBlock(r: RecordPlan): string {
  // A record that could not be read is named by its line already (`CSV-2 (line 4)`, `line 4`): said once.
  const named = r.line !== undefined && (r.key === `line ${r.line}` || r.key.endsWith(` (line ${r.line})`));
  const head = `${r.key}${r.line && !named ? ` (line ${r.line})` : ''}  ${OUTCOME[r.outcome]}  ${r.summary}`;
  const body = [...detailLines(r.details), ...r.calls.flatMap(callLines)];
  if (r.reads.length) body.push(`reads: ${r.reads.map((g) => `${g.method} ${g.path}`).join(', ')}`);
  if (r.error?.hint) body.push(`what to do: ${r.error.hint}`);
  return [head, ...body.map((l) => indent(l, '    '))].join('\n');
}

/** The dry run for people: each record's plan by stream, the sums, and every record that would fail. */
export function renderPlan(plan: DryRunPlan): string {
  const out: string[] = ['Dry run: nothing was written to the service, no cursor moved, no job was queued.', ''];
  // By stream: what was read of it (its backlog, then its feed), then its records in the order they were planned.
  for (const stream of new Set(plan.sources.map((s) => s.stream))) {
    for (const source of plan.sources.filter((s) => s.stream === stream)) out.push(sourceLine(source));
    for (const r of plan.records.filter((x) => x.stream === stream)) out.push(indent(recordBlock(r), '  '));
    out.push('');
  }
  const s = plan.summary;
  out.push(
    renderTable(
      ['STREAM', 'RECORDS', 'WRITES', 'NO CALL', 'SKIPPED', 'FAILS', 'AGAIN', 'POSTS', 'GETS'],
      Object.entries(s.perStream).map(([stream, x]) => [
        stream,
        x.records,
        x.outcomes.writes,
        x.outcomes.unchanged,
        x.outcomes.skipped,
        x.outcomes.fails,
        x.outcomes.duplicate,
        x.posts,
        x.gets,
      ]),
    ),
    '',
    `In all: ${plural(s.records, 'record')}, ${plural(s.posts, 'write')} (POST) ` +
      `and ${plural(s.gets, 'read')} (GET, made by this dry run too; catalog reads aside).`,
  );
  for (const [stream, q] of Object.entries(plan.alreadyQueued ?? {})) {
    out.push(
      `${stream}: ${plural(q.jobs, 'job')} and ${plural(q.batches, 'import batch', 'import batches')} were queued before this dry run; ` +
        'the real run processes them too (not previewed here; see inventory-sync jobs list).',
    );
  }
  const failing = plan.records.filter((r) => r.outcome === 'fails');
  if (failing.length) {
    out.push('', `${plural(failing.length, 'record')} would fail:`);
    out.push(
      renderTable(
        ['STREAM', 'RECORD', 'REASON'],
        failing.map((r) => [r.stream, r.key, clip(`[${r.error?.code}] ${r.error?.message}`, 140)]),
      ),
    );
  } else out.push('Every record can be synced as planned.');
  const waiting = plan.records.filter((r) => r.waitsFor?.length);
  if (waiting.length) {
    out.push(
      '',
      `Of these, ${plural(waiting.length, 'record')} only ${waiting.length === 1 ? 'names' : 'name'} what the service lacks: ` +
        'under a running `worker` each would wait for it instead (no attempt spent) and go on by itself once it exists:',
      renderTable(
        ['STREAM', 'RECORD', 'WOULD WAIT FOR'],
        waiting.map((r) => [r.stream, r.key, clip(r.waitsFor!.join(', '), 140)]),
      ),
    );
  }
  return `${out.join('\n')}\n`;
}
