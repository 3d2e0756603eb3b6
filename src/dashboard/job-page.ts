import type { JobStory } from '../ops/job-inspect.js';
import { intakeQueueName } from '../queue/intake-queue.js';
import { esc } from './html.js';

/** What an import batch holds, in place of a record. */
function batchBody(b: NonNullable<JobStory['batch']>): string {
  const more = b.records !== null && b.records > b.firstRecordIds.length ? '<li class="muted">…</li>' : '';
  return `<h2>Import batch</h2><p class="muted">Its records are not jobs yet: a worker turns the batch into one job per record.</p>
<table id="batch"><tr><th>records</th><td>${esc(b.records ?? 'unreadable')}</td></tr><tr><th>lines</th><td>${esc(b.firstLine ?? '?')}-${esc(b.lastLine ?? '?')}</td></tr>
<tr><th>first jobs</th><td><ul>${b.firstRecordIds.map((id) => `<li><code>${esc(id)}</code></li>`).join('')}${more}</ul></td></tr></table>`;
}

/** One job's story as a page: state, record, each attempt with its API calls, the error and what to do. */
export function jobBody(s: JobStory, flash?: string): string {
  const attempts = s.attempts
    .map((a) => {
      const calls = a.calls.length
        ? `<table class="calls"><tr><th>method</th><th>path</th><th>status</th><th>ms</th><th>budget wait ms</th><th>error</th></tr>${a.calls
            .map((c) => `<tr><td>${esc(c.method)}</td><td><code>${esc(c.path)}</code></td><td>${esc(c.status ?? 'no answer')}</td><td class="n">${esc(c.ms)}</td><td class="n">${esc(c.waitedMs ?? 0)}</td><td>${esc(c.error ?? '')}</td></tr>`)
            .join('')}</table>`
        : '<p class="muted">no API calls</p>';
      const notes = a.notes.map((n) => `<li>${esc(n.at)}: ${esc(n.message)}</li>`).join('');
      const end = a.error
        ? `<span class="bad">failed [${esc(a.error.code)}] ${esc(a.error.message)}</span>`
        : a.result
          ? `<span class="ok">${esc(a.result.outcome)}</span>: ${esc(a.result.summary)}`
          : 'running';
      return `<h3>Attempt ${esc(a.attempt)} at ${esc(a.startedAt)} (${esc(a.ms ?? '?')} ms): ${end}</h3>${calls}${notes ? `<ul>${notes}</ul>` : ''}`;
    })
    .join('');
  const error = s.error
    ? `<h2>Error</h2><p class="bad" id="reason">[${esc(s.error.code)}] ${esc(s.error.message)}</p>${s.error.hint ? `<p id="hint"><strong>What to do:</strong> ${esc(s.error.hint)}</p>` : ''}`
    : '';
  const retry =
    s.state === 'failed'
      ? `<form method="post" action="/jobs/${encodeURIComponent(s.id)}/retry"><button type="submit">Retry this job</button></form>`
      : '';
  // The outcome first: a skipped record (before go-live, superseded) completed without being written.
  const rv = s.result as { outcome?: string; summary?: string } | null;
  const result = s.state === 'completed' ? `<p class="ok" id="result">${rv?.outcome ? `<strong id="outcome">${esc(rv.outcome)}</strong>: ` : ''}${esc(rv?.summary ?? 'completed')}</p>` : '';
  return `${flash ? `<p class="flash" role="status">${esc(flash)}</p>` : ''}
<h1>Job <code>${esc(s.id)}</code></h1>
<table id="job"><tr><th>stream</th><td>${esc(s.stream)}</td></tr><tr><th>key</th><td>${esc(s.key ?? '')}</td></tr>
<tr><th>state</th><td id="state">${esc(s.state)}</td></tr><tr><th>attempts</th><td>${esc(s.attemptsMade)} of ${esc(s.maxAttempts)}</td></tr>
<tr><th>queued</th><td>${esc(s.createdAt)}</td></tr><tr><th>finished</th><td>${esc(s.finishedAt ?? '')}</td></tr></table>
${error}${result}${retry}${s.batch ? batchBody(s.batch) : `<h2>Record</h2><pre>${esc(JSON.stringify(s.record, null, 2))}</pre>`}<h2>Attempts</h2>${attempts || `<p class="muted">${s.batch && s.attemptsMade ? 'an import batch keeps no trace of its attempts (counted above)' : 'none yet'}</p>`}
<p><a href="/queues/queue/${esc(s.batch ? intakeQueueName(s.stream) : s.stream)}">All ${esc(s.stream)} ${s.batch ? 'import batches' : 'jobs'}</a> · <a href="/">Overview</a></p>`;
}
