import type { FindResult } from '../ops/find.js';
import { esc } from './html.js';

/** The search box of the overview: any orderId, countId or productId. */
export function searchBox(value = ''): string {
  return `<form id="find" class="find" method="get" action="/find" role="search"><label for="find-key">Find a record</label>
<input id="find-key" name="key" value="${esc(value)}" placeholder="orderId, countId or productId" required maxlength="200"><button type="submit">Find</button></form>`;
}

/** An entity's URL as a link to the service when its base URL is known, else as text. */
export function entityLink(url: string, serviceBaseUrl?: string): string {
  return serviceBaseUrl ? `<a href="${esc(serviceBaseUrl + url)}" rel="noreferrer" target="_blank"><code>${esc(url)}</code></a>` : `<code>${esc(url)}</code>`;
}

const when = (iso: string | null) => esc((iso ?? '').replace('T', ' ').slice(0, 19));

/** A key's story: each job (version, state, attempts with their calls, result or error) and the entities it made. */
export function findBody(r: FindResult, serviceBaseUrl?: string): string {
  if (!r.found) {
    return `${searchBox(r.key)}<p class="bad" id="find-none">Nothing known of <code>${esc(r.key)}</code> under prefix ${esc(r.prefix)}: no job (completed ones are kept 7 days) and no progress.</p>`;
  }
  const jobs = r.jobs
    .map((j) => {
      const calls = j.attempts.flatMap((a) => a.calls.map((c) => `<li><code>${esc(c.method)} ${esc(c.path)}</code> ${esc(c.status ?? 'no answer')}${c.error ? ` <span class="bad">${esc(c.error)}</span>` : ''}</li>`));
      const end = j.error
        ? `<span class="bad">[${esc(j.error.code)}] ${esc(j.error.message)}</span>`
        : `<span class="ok">${esc((j.result as { summary?: string } | null)?.summary ?? j.state)}</span>`;
      return `<tr data-job="${esc(j.id)}"><td><a href="/jobs/${encodeURIComponent(j.id)}">${esc(j.id)}</a></td><td>${esc(j.stream)}</td><td>v${j.version}${j.latest ? '' : ' <span class="muted">(older)</span>'}</td>
<td class="state">${esc(j.state)}</td><td class="n">${j.attemptsMade}/${j.maxAttempts}</td><td>${when(j.finishedAt ?? j.createdAt)}</td><td>${end}${calls.length ? `<details><summary>${calls.length} API call${calls.length === 1 ? '' : 's'}</summary><ul>${calls.join('')}</ul></details>` : ''}</td></tr>`;
    })
    .join('');
  const entities = r.entities.length
    ? r.entities.map((e) => `<tr><td>${esc(e.kind)}</td><td>${entityLink(e.url, serviceBaseUrl)}</td><td>${e.source === 'progress' ? 'progress in Redis' : `<a href="/jobs/${encodeURIComponent(e.source)}">${esc(e.source)}</a>`}</td></tr>`).join('')
    : '<tr><td colspan="3" class="muted">none recorded</td></tr>';
  const mapped = r.mapped.length
    ? `<h2>Mapped names</h2><table id="find-mapped"><tr><th>kind</th><th>upstream</th><th>service (MAPPING_FILE)</th></tr>${r.mapped
        .map((m) => `<tr><td>${esc(m.kind)}</td><td><code>${esc(m.upstream)}</code></td><td>→ <code>${esc(m.service)}</code></td></tr>`)
        .join('')}</table>`
    : '';
  const progress = r.progressLines.map((line) => `<p class="progress">${esc(line)}</p>`).join('');
  return `${searchBox(r.key)}<h1>Record <code>${esc(r.key)}</code></h1>
<h2>Jobs</h2><table id="find-jobs"><tr><th>job</th><th>stream</th><th>version</th><th>state</th><th>attempts</th><th>when (UTC)</th><th>result / error</th></tr>${jobs || '<tr><td colspan="7" class="muted">none kept</td></tr>'}</table>
<h2>Service entities</h2><table id="find-entities"><tr><th>kind</th><th>URL</th><th>known from</th></tr>${entities}</table>${mapped}${progress}`;
}
