import type { ReconcileReport } from '../ops/reconcile-types.js';
import { entityLink } from './find-page.js';
import { esc } from './html.js';

const when = (iso: string) => esc(iso.replace('T', ' ').slice(0, 19));

/** One line for the overview: when reconcile last ran and what it found. */
export function reconcileSummary(r: ReconcileReport | undefined): string {
  if (!r) return '<p id="reconcile-summary" class="muted">Reconcile has not run yet: <code>inventory-sync reconcile</code> compares the service with what was synced.</p>';
  const found = r.ok ? '<span class="ok">no drift</span>' : `<span class="bad">${r.drifts.length} drift${r.drifts.length === 1 ? '' : 's'}</span>`;
  return `<p id="reconcile-summary">Last reconcile ${when(r.at)} UTC: ${found}. <a href="/reconcile">The report</a></p>`;
}

/** The last reconcile report: what was compared, every drift naming the record and the field, what it cost. */
export function reconcileBody(r: ReconcileReport | undefined, serviceBaseUrl?: string): string {
  if (!r) return reconcileSummary(r);
  const c = r.checked;
  const drifts = r.drifts.length
    ? r.drifts
        .map(
          (d) => `<tr data-key="${esc(d.key)}"><td>${esc(d.stream)}</td><td><a href="/find?key=${encodeURIComponent(d.key)}">${esc(d.key)}</a></td><td><code>${esc(d.kind)}</code></td><td class="field">${esc(d.field)}</td>
<td>${esc(d.service)}</td><td>${esc(d.synced)}</td><td>${d.url ? entityLink(d.url, serviceBaseUrl) : ''}${d.detail ? ` <span class="muted">${esc(d.detail)}</span>` : ''}</td></tr>`,
        )
        .join('')
    : '<tr><td colspan="7" class="ok">No drift: the service matches what was synced.</td></tr>';
  const unchecked = r.unchecked.length ? `<h2>Not compared</h2><ul>${r.unchecked.map((u) => `<li>${esc(u.stream)} ${esc(u.key)}: ${esc(u.reason)}</li>`).join('')}</ul>` : '';
  return `<h1>Reconcile report</h1>${reconcileSummary(r)}
<p>Compared ${c.orders} orders, ${c.shipments} orders' shipments, ${c.stockPairs} counted (location, product) pairs and ${c.boms} BOMs (${esc(r.streams.join(', '))}); cost ${r.calls.collection} collection GETs and ${r.calls.get} entity GETs in ${(r.ms / 1000).toFixed(1)} s.</p>
<table id="drifts"><tr><th>stream</th><th>record</th><th>drift</th><th>field</th><th>service has</th><th>synced</th><th>detail</th></tr>${drifts}</table>${unchecked}
<p class="muted">Run it again with <code>inventory-sync reconcile</code>.</p>`;
}
