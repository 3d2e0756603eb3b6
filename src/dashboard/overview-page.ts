import type { StatusReport } from '../ops/status-report.js';
import type { ReconcileReport } from '../ops/reconcile-types.js';
import { intakeQueueName } from '../queue/intake-queue.js';
import { searchBox } from './find-page.js';
import { flowSection } from './flow-charts.js';
import { esc } from './html.js';
import { reconcileSummary } from './reconcile-page.js';

function ago(seconds: number | null): string {
  if (seconds === null) return '<span class="muted">never caught up</span>';
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

const when = (iso: string | null) => (iso ? esc(iso.replace('T', ' ').slice(0, 19)) : '<span class="muted">-</span>');

/** A stream's import batches (records not yet jobs) by state, e.g. "3 waiting, 1 failed". */
function batches(st: StatusReport['streams'][number]): string {
  const parts = Object.entries(st.intake)
    .filter(([, n]) => n > 0)
    .map(([state, n]) => (state === 'failed' ? `<span class="bad">${n} failed</span>` : `${n} ${esc(state)}`));
  return parts.length ? `<a href="/queues/queue/${esc(intakeQueueName(st.stream))}">${parts.join(', ')}</a>` : '<span class="muted">none</span>';
}

/** A banner per stream its breaker paused: since when, why, how many jobs wait, and the button that resumes it. */
function pausedBanners(s: StatusReport): string {
  return s.streams
    .filter((st) => st.breaker.paused)
    .map(
      (st) => `<div class="paused bad" role="alert" data-paused="${esc(st.stream)}"><p><strong>${esc(st.stream)} is paused</strong> since ${when(st.breaker.since)} UTC:
the account refused every job (${st.breaker.refusals} in a row). Last: <code>${esc(st.breaker.reason ?? 'no reason recorded')}</code></p>
<p>No job of ${esc(st.stream)} runs and none is pulled; ${st.breaker.waiting} job(s) wait, none lost. Fix the cause (credentials, the account's rights, the service), then resume.</p>
<form class="inline" method="post" action="/resume"><input type="hidden" name="stream" value="${esc(st.stream)}"><button type="submit">Resume ${esc(st.stream)}</button></form></div>`,
    )
    .join('');
}

/** The overview: per stream counts (import batches too) and feed position, budget use, schedules, failed jobs grouped by reason. */
export function overviewBody(s: StatusReport, flash?: string, extra: { reconcile?: ReconcileReport } = {}): string {
  const streams = s.streams
    .map(
      (st) => `<tr><td><a href="/queues/queue/${esc(st.stream)}">${esc(st.stream)}</a></td>
<td class="n">${st.counts.waiting + st.counts.prioritized}</td><td class="n">${st.counts.active}</td><td class="n">${st.counts.delayed}</td>
<td class="n ${st.counts.failed ? 'bad' : ''}">${st.counts.failed}</td><td class="n">${st.counts.completed}</td><td class="batches">${batches(st)}</td>
<td><code>${esc(st.feed.cursor ?? '-')}</code></td><td>${when(st.feed.lastPollAt)}</td><td>${ago(st.feed.behindSeconds)}</td>
<td>${st.feed.lastError ? `<span class="bad">${esc(st.feed.lastError.message)}</span>` : `${st.feed.recordsQueued} queued, ${st.feed.duplicates} re-delivered, ${st.feed.invalid} invalid`}</td></tr>`,
    )
    .join('');
  const budget = s.budget
    .map((b) => {
      const state = b.heldUntil ? `<span class="bad">held until ${when(b.heldUntil)} (429)</span>` : b.reservedAhead > 0 ? 'at its limit' : 'open';
      return `<tr><td>${esc(b.cls)}</td><td>${esc(b.limit ?? '-')}</td><td class="n">${b.requests}</td><td class="n">${(b.waitedMs / 1000).toFixed(1)} s</td><td class="n">${b.holds}</td><td class="n">${b.reservedAhead}</td><td>${state}</td></tr>`;
    })
    .join('');
  const schedule = s.schedule.length
    ? s.schedule
        .map((r) => {
          const last = r.lastOk === null ? '' : r.lastOk ? '<span class="ok">ok</span>' : `<span class="bad">failed: ${esc(r.lastError ?? '')}</span>`;
          return `<tr><td>${esc(r.name)}</td><td>${esc(r.rule ?? '')}</td><td>${when(r.lastRunAt)} ${last}</td><td>${when(r.nextRunAt)}</td></tr>`;
        })
        .join('')
    : '<tr><td colspan="4" class="muted">none yet (the worker sets them up)</td></tr>';
  const groups = s.failedGroups.length
    ? s.failedGroups
        .map(
          (g) => `<tr data-group="${esc(g.stream)}:${esc(g.code)}"><td>${esc(g.stream)}</td><td><code>${esc(g.code)}</code></td><td class="reason">${g.batch ? 'import batch: ' : ''}${esc(g.reason)}</td><td class="n">${g.count}</td>
<td>${g.examples.map((id) => `<a href="/jobs/${encodeURIComponent(id)}">${esc(id)}</a>`).join('<br>')}</td>
<td><form class="inline" method="post" action="/retry-group"><input type="hidden" name="stream" value="${esc(g.stream)}"><input type="hidden" name="code" value="${esc(g.code)}"><input type="hidden" name="reason" value="${esc(g.reason)}"><input type="hidden" name="batch" value="${g.batch}"><button type="submit">Retry this group (${g.count})</button></form></td></tr>`,
        )
        .join('')
    : '<tr><td colspan="6" class="ok">No failed jobs.</td></tr>';
  return `${flash ? `<p class="flash" role="status">${esc(flash)}</p>` : ''}
${pausedBanners(s)}
${searchBox()}
<p class="muted">As of ${when(s.at)} UTC (the charts below update by themselves). <a href="/">Refresh</a></p>
${flowSection(s.streams.map((x) => x.stream))}
${reconcileSummary(extra.reconcile)}
<h2>Streams</h2><table id="streams"><tr><th>stream</th><th>waiting</th><th>active</th><th>delayed</th><th>failed</th><th>completed</th><th title="imported records not yet jobs: a worker turns each batch into one job per record">import batches</th><th>feed cursor</th><th>last poll</th><th>behind</th><th>feed</th></tr>${streams}</table>
<h2>Failed jobs by reason</h2><table id="failed-groups"><tr><th>stream</th><th>code</th><th>reason</th><th>jobs</th><th>examples</th><th></th></tr>${groups}</table>
<h2>Request budget</h2><table id="budget"><tr><th>class</th><th>limit</th><th>requests</th><th>waited</th><th>429s</th><th>scheduled ahead</th><th>state</th></tr>${budget}</table>
<h2>Scheduled runs</h2><table id="schedule"><tr><th>run</th><th>rule</th><th>last</th><th>next</th></tr>${schedule}</table>`;
}
