import type { StatusReport } from '../ops/status-report.js';
import { holdLines } from './render-holds.js';
import { clip, renderTable } from './table.js';
import { shortDateTime } from '../time/date-format.js';
import { feedBehindText, supersededText } from '../ops/state-words.js';

const when = (iso: string | null) => shortDateTime(iso, '-');

/** Workers run but none pulls the feed: they take pushes and imports, so a stream never pulled is not behind. */
const pushOnly = (s: StatusReport) => s.workers.running > 0 && s.workers.pulling === 0;

/** The rate the program allows itself now, in the unit of the class's limit. */
function effective(b: StatusReport['budget'][number]): string {
  if (b.effectivePerMinute === null) return '-';
  const hourly = b.limit?.endsWith('/h');
  const pct = b.share < 1 ? ` (${Math.round(b.share * 100)}%)` : '';
  return `${Math.round(hourly ? b.effectivePerMinute * 60 : b.effectivePerMinute)}${hourly ? '/h' : '/min'}${pct}`;
}

/** `status` for a person. */
export function renderStatus(s: StatusReport): string {
  const out: string[] = [`Status of prefix ${s.prefix} at ${when(s.at)} UTC`, ''];
  if (s.redis.warning) out.push(`Warning: ${s.redis.warning}`, '');
  out.push(...holdLines(s), ...streamLines(s), ...waitLines(s), ...budgetLines(s), ...scheduleLines(s), ...failureLines(s));
  return `${out.join('\n')}\n`;
}

/** The records that wait for what the service lacks, by what they wait for (each goes on by itself once it exists). */
function waitLines(s: StatusReport): string[] {
  if (!s.waits.groups.length) return [];
  const more = s.waits.more ? [`  and ${s.waits.more} more groups`] : [];
  return [
    '',
    'Waiting for what the service lacks (no attempt spent; each goes on by itself once it exists, `catalog refresh` looks now):',
    ...s.waits.groups.map((g) => `  ${g.text}`),
    ...more,
  ];
}

/** Each stream's jobs and feed, its import batches when it has any, and the feed's problems. */
function streamLines(s: StatusReport): string[] {
  const out = [
    renderTable(
      ['STREAM', 'WAITING', 'ACTIVE', 'DELAYED', 'FAILED', 'COMPLETED', 'CURSOR', 'LAST POLL', 'BEHIND'],
      s.streams.map((st) => [
        st.stream,
        st.counts.waiting + st.counts.prioritized,
        st.counts.active,
        st.counts.delayed,
        st.counts.failed,
        st.counts.completed,
        clip(st.feed.cursor ?? '-', 24),
        when(st.feed.lastPollAt),
        feedBehindText(st.feed.behindSeconds, st.feed.lastPollAt),
      ]),
    ),
  ];
  const withBatches = s.streams.filter((st) => Object.values(st.intake).some((n) => n > 0));
  if (withBatches.length) {
    out.push('', 'Import batches by state (their records are not jobs yet; a worker turns each batch into one job per record):');
    out.push(
      renderTable(
        ['STREAM', 'WAITING', 'ACTIVE', 'DELAYED', 'FAILED'],
        withBatches.map((st) => [st.stream, st.intake.waiting, st.intake.active, st.intake.delayed, st.intake.failed]),
      ),
    );
  }
  const feedNotes = s.streams
    .filter((st) => st.feed.lastError)
    .map((st) => `  ${st.stream}: last pull failed at ${when(st.feed.lastError!.at)}: ${st.feed.lastError!.message}`);
  if (feedNotes.length) out.push('', 'Feed problems:', ...feedNotes);
  const found = s.streams.filter((st) => st.feed.foundByPull !== null);
  if (found.length)
    out.push('', ...found.map((st) => `${st.stream}: found by the pull that no webhook brought: ${st.feed.foundByPull} in the last hour`));
  return out;
}

/** Each request class's budget, and why a shared one runs below its limit. */
function budgetLines(s: StatusReport): string[] {
  const out = ['', 'Request budget:'];
  out.push(
    renderTable(
      ['CLASS', 'LIMIT', 'EFFECTIVE', 'REQUESTS', 'WAITED', '429S', 'AHEAD', 'STATE'],
      s.budget.map((b) => [
        b.cls,
        b.limit ?? '-',
        effective(b),
        b.requests,
        `${(b.waitedMs / 1000).toFixed(1)} s`,
        b.holds,
        b.reservedAhead,
        b.heldUntil ? `held until ${when(b.heldUntil)} (429)` : b.reservedAhead > 0 ? 'at its limit' : 'open',
      ]),
    ),
  );
  const shared = s.budget.filter((b) => b.share < 1);
  if (shared.length) out.push('', ...shared.map((b) => `  ${b.cls}: ${effective(b)} of ${b.limit ?? '?'}, because ${b.why}`));
  return out;
}

/** What the running workers take, when none pulls the feed. */
function pushOnlyLine(s: StatusReport): string {
  const n = s.workers.running;
  const at = s.workers.receivers.length ? `pushes at ${s.workers.receivers.join(', ')}/ingest/{stream}` : 'no pushes (INGEST_PORT not set)';
  return `  none: ${n} worker${n === 1 ? ' runs' : 's run'} without UPSTREAM_URL, pulling nothing; taking ${at} and imported records`;
}

function scheduleLines(s: StatusReport): string[] {
  if (!s.schedule.length && pushOnly(s)) return ['', 'Scheduled runs:', pushOnlyLine(s)];
  if (!s.schedule.length) return ['', 'Scheduled runs:', '  none yet (`worker` sets them up)'];
  return [
    '',
    'Scheduled runs:',
    renderTable(
      ['RUN', 'RULE', 'LAST', 'NEXT', 'LAST RESULT'],
      s.schedule.map((r) => [r.name, r.rule, when(r.lastRunAt), when(r.nextRunAt), lastResult(r)]),
    ),
    ...s.schedule.flatMap((r) => [r.madeUp, r.notMadeUp].flatMap((m) => (m ? [`  ${r.stream ?? r.name}: ${m.text}`] : []))),
  ];
}

/** A run's last result: ok, not pulled (held: made up once its cause ends), or failed. */
function lastResult(r: StatusReport['schedule'][number]): string {
  if (r.lastOk === null) return '-';
  if (r.lastOk) return 'ok';
  return r.missed && r.missed.cause !== 'failed' ? clip(r.lastError ?? 'not pulled', 60) : clip(`failed: ${r.lastError ?? ''}`, 60);
}

/** Failures a newer version of their record superseded: history, told apart from the failures now. */
function supersededLines(s: StatusReport): string[] {
  const by = s.streams.filter((st) => st.superseded > 0);
  if (!by.length) return [];
  return ['', `History, not failures now: ${supersededText(by)} (\`find <KEY>\` shows each record's versions).`];
}

function failureLines(s: StatusReport): string[] {
  if (!s.failedGroups.length) return ['', 'Failed jobs by reason:', '  none', ...supersededLines(s)];
  return [
    '',
    'Failed jobs by reason:',
    renderTable(
      ['STREAM', 'CODE', 'JOBS', 'REASON', 'EXAMPLE'],
      s.failedGroups.map((g) => [g.stream, g.code, g.count, clip(g.batch ? `import batch: ${g.reason}` : g.reason, 70), g.examples[0]]),
    ),
    '',
    retryLine(s.failedGroups),
    ...supersededLines(s),
  ];
}

/** How to see a failed job, and to retry a stream's where a retry can help (none: records wrong in themselves). */
function retryLine(groups: StatusReport['failedGroups']): string {
  const see = `See one with: inventory-sync jobs show ${groups[0]!.examples[0] ?? '<ID>'}`;
  const helped = groups.find((g) => g.retryHelps);
  if (helped) {
    const retry = `inventory-sync jobs retry --all-failed --stream ${helped.stream}`;
    return `${see}; after fixing the cause, retry the failed jobs of ${helped.stream}: ${retry}`;
  }
  return `${see}. A retry cannot help these: each is a record wrong in itself; fix it where it comes from and send it again.`;
}
