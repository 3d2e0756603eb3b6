import type { CheckProblem, CheckReport, MappingGap, ServiceCheck } from '../ops/check/check-types.js';
import type { FullCheck } from './check-verdict.js';
import { renderStoreCheck } from './render-store-check.js';
import { clip, renderTable } from './table.js';

const VERDICT: Record<CheckReport['verdict'], string> = {
  ready: 'READY',
  gaps: 'GAPS FOUND',
  unreachable: 'NOT READY: something could not be reached or refused',
};

const GAP_PROBLEM: Record<MappingGap['problem'], string> = {
  unknown: 'not in the account',
  ambiguous: 'names several facilities',
  'not-a-magazine': 'is a location; an order origin must be a magazine',
  'not-a-location': 'is a magazine; stock moves at a location',
};

/** Bad records and gap examples shown in the table (--json has them all). */
const MAX_ROWS = 50;

/** What the closing line's commands need of the situation: the streams (the first is named in a file's dry run). */
export interface CheckContext {
  streams: readonly string[];
}

/**
 * `check` for a person: one section per part (the store's too), the gaps, the warnings, and the verdict with what to
 * do next; the heading and the closing line say the one verdict the exit code says (check-verdict.ts).
 */
export function renderCheck(r: FullCheck, c: CheckContext): string {
  const out = [`Check of ${r.service.baseUrl}/${r.service.account}: ${VERDICT[r.verdict]}`, ''];
  out.push(...serviceSection(r.service), '');
  out.push(...redisSection(r), '');
  out.push(...feedSection(r), '');
  out.push(...gapSection(r));
  if (r.store) out.push(...renderStoreCheck(r.store).trimEnd().split('\n'));
  if (r.warnings.length) out.push('', 'Warnings:', ...r.warnings.map((w) => `  - ${w}`));
  out.push('', closing(r, c));
  return `${out.join('\n')}\n`;
}

function problemLines(p: CheckProblem): string[] {
  return [`  ${p.message} [${p.code}]`, `  What to do: ${p.hint}`];
}

function serviceSection(s: ServiceCheck): string[] {
  const out = [`Service  ${s.baseUrl}/${s.account}/api`];
  if (s.problem) return [...out, ...problemLines(s.problem), '  (nothing else of the service was checked)'];
  out.push('  credentials: accepted; account: found');
  const f = s.facilities;
  if (f) {
    out.push(`  facilities: ${f.magazines} magazines, ${f.locations} locations`);
    for (const m of f.tree)
      out.push(
        `    ${m.name}: ${m.locations.length} locations` +
          `${m.locations.length ? ` (${clip(m.locations.map((l) => l.name).join(', '), 90)})` : ''}`,
      );
    for (const o of f.orphans) out.push(`    (no magazine) ${o.name}: parent ${o.parentUrl} is not a facility`);
  }
  const p = s.products;
  if (p) {
    out.push(
      `  products: ${p.count} (${p.active} active, ${p.inactive} inactive); ` +
        `${p.urlDiffers} with a URL whose id is not their productId (looked up, never built)`,
    );
  }
  const sent = s.rateLimit.sent;
  out.push(
    `  rate-limit headers sent: ${
      sent
        ? Object.entries(sent)
            .map(([k, v]) => `${k}: ${v}`)
            .join(', ')
        : 'none sent'
    }`,
  );
  const b = s.rateLimit.budgets;
  const total = b.requestsPerMinute === null ? '' : `, ${b.requestsPerMinute} requests/min in all`;
  out.push(
    `  budgets configured: ${b.postPerMinute} POST/min, ${b.getPerMinute} GET/min, ${b.collectionPerHour} collection GETs/h${total}`,
  );
  return out;
}

function redisSection(r: CheckReport): string[] {
  const x = r.redis;
  const out = [`Redis  ${x.at} (${x.mode}${x.version ? `, version ${x.version}` : ''})`];
  out.push(`  eviction policy: ${x.maxmemoryPolicy ?? 'unknown'}${x.warning ? ' (WARNING, below)' : ''}`);
  out.push(`  prefix: ${x.prefix}`);
  if (x.pendingTotal === 0) out.push('  queued: nothing waiting');
  else {
    out.push('  queued:');
    out.push(
      indent(
        renderTable(
          ['STREAM', 'PENDING', 'FAILED', 'IMPORT BATCHES'],
          x.queued.map((q) => [q.stream, q.pending, q.failed, q.batches]),
        ),
      ),
    );
  }
  return out;
}

function feedSection(r: CheckReport): string[] {
  const f = r.feed;
  if (!f.configured) return ['Feed  not configured (UPSTREAM_URL)'];
  const out = [`Feed  ${f.url}: first page of each stream, from its cursor (no cursor moved)`];
  const rows = f.streams.map((s) => [
    s.stream,
    clip(s.cursor ?? '(start)', 30),
    s.state === 'ok' ? 'ok' : (s.problem?.code ?? s.state),
    s.records,
    s.valid,
    s.bad.length,
    s.hasMore === null ? '' : s.hasMore ? 'yes' : 'no',
  ]);
  out.push(indent(renderTable(['STREAM', 'CURSOR', 'STATE', 'RECORDS', 'VALID', 'BAD', 'MORE'], rows)));
  for (const s of f.streams) if (s.problem) out.push(`  ${s.stream}: ${s.problem.message}`, `    What to do: ${s.problem.hint}`);
  const bad = f.streams.flatMap((s) => s.bad.map((b) => [s.stream, clip(b.record, 40), clip(b.problems.join('; '), 110)]));
  if (bad.length) {
    out.push('', `Bad records (${bad.length}; they would fail as bad records):`);
    out.push(indent(renderTable(['STREAM', 'RECORD', 'WHY'], bad.slice(0, MAX_ROWS))));
    if (bad.length > MAX_ROWS) out.push(`  ... and ${bad.length - MAX_ROWS} more (--json lists them all)`);
  }
  return out;
}

function gapSection(r: CheckReport): string[] {
  const out: string[] = [];
  if (r.mapped.length) {
    out.push('Mapped (MAPPING_FILE names them otherwise in the service):');
    out.push(
      indent(
        renderTable(
          ['WHAT', 'NAME', 'MAPPED TO', 'RECORDS'],
          r.mapped.map((m) => [m.what, m.name, m.to, m.records]),
        ),
      ),
      '',
    );
  }
  if (r.gaps === null) return [...out, `Mapping gaps: not compared: ${notCompared(r)}`];
  if (r.gaps.length === 0)
    return [...out, 'Mapping gaps: none: every product and facility the first pages name is in the account, of the right kind'];
  out.push(`Mapping gaps (${r.gaps.length}):`);
  const rows = r.gaps
    .slice(0, MAX_ROWS)
    .map((g) => [
      g.what,
      clip(g.mappedTo === undefined ? g.name : `${g.name} → ${g.mappedTo}`, 40),
      GAP_PROBLEM[g.problem],
      g.records,
      g.streams.join(', '),
      clip([...g.examples, ...g.candidates.map((c) => `is ${c}`)].join(', '), 70),
    ]);
  out.push(indent(renderTable(['WHAT', 'NAME', 'PROBLEM', 'RECORDS', 'STREAMS', 'EXAMPLES'], rows)));
  if (r.gaps.length > MAX_ROWS) out.push(`  ... and ${r.gaps.length - MAX_ROWS} more (--json lists them all)`);
  return out;
}

/** Why no records were compared with the account: no feed, or what could not be read. */
function notCompared(r: CheckReport): string {
  if (!r.feed.configured) return 'no feed is configured (UPSTREAM_URL), so no records were read';
  if (r.service.state !== 'ok') return 'the service could not be read (above)';
  return 'no stream of the feed could be read (above)';
}

/** The verdict in words, and the next step as a command that runs as printed where check ran (or what to set first). */
function closing(r: FullCheck, c: CheckContext): string {
  const run = (args: string) => `inventory-sync ${args}`;
  if (r.verdict === 'unreachable')
    return `Not ready: fix what could not be reached or refused (above), then run check again: ${run('check')}`;
  if (r.verdict === 'gaps') {
    const what = [
      ...(r.gaps?.length ? ['add the products and facilities to the account, name them in MAPPING_FILE, or fix the records upstream'] : []),
      ...(r.store && r.store.gaps > 0 ? ["settle the store's gaps as its section says"] : []),
    ];
    return `Gaps found (listed above): ${what.join('; ')}; then run check again: ${run('check')}`;
  }
  const next = r.feed.configured
    ? `Next: a dry run of the feed: ${run('sync --once --dry-run')}`
    : r.store
      ? `Next: a dry run of the store's orders: ${run(`sync --once --dry-run --stream ${r.store.stream}`)}`
      : `Next: a dry run of a file: ${run(`import ${c.streams[0] ?? '<STREAM>'} <FILE> --dry-run`)} ` +
        `(a dry run of the feed, ${run('sync --once --dry-run')}, needs UPSTREAM_URL set first)`;
  const compared =
    r.feed.configured || r.store ? 'nothing found that would stop a first run' : 'the service and Redis answer; no feed was read';
  return `Ready: ${compared}. ${next}`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}
