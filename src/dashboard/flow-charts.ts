import { esc } from './html.js';

/** The overview's live charts: containers the script below fills, per stream and per budget class. */
export function flowSection(names: readonly string[], refreshMs = 5000): string {
  const streams = names.map(
    (s) => `<div class="chart" id="flow-${esc(s)}" data-stream="${esc(s)}"><h3>${esc(s)}</h3><p class="flow-sum muted">loading…</p></div>`,
  ).join('');
  const budget = ['post', 'get', 'collection']
    .map((c) => `<div class="chart" id="flow-budget-${c}" data-class="${c}"><h3>budget: ${c}</h3><p class="flow-sum muted">loading…</p></div>`)
    .join('');
  return `<h2>Flow <span class="muted">per minute, live (updated <span id="flow-updated">-</span>)</span>
<select id="flow-span" aria-label="time span"><option value="60">1 h</option><option value="180" selected>3 h</option><option value="720">12 h</option><option value="1440">24 h</option></select></h2>
<div id="flow" class="charts" data-refresh-ms="${refreshMs}">${streams}${budget}</div>
<p class="muted">Green: records synced; red: records failed for good; blue: how far behind the feed is (dashed: the alert limit); grey: requests to the service (dashed: the budget).</p>
<script src="/assets/flow-charts.js" defer></script>`;
}

/**
 * The browser side (served as /assets/flow-charts.js: a script of the dashboard's own origin, nothing from elsewhere).
 * Polls /api/flow and redraws inline SVG; no library.
 */
export const FLOW_CHARTS_JS = String.raw`(() => {
  'use strict';
  const root = document.getElementById('flow');
  if (!root) return;
  const NS = 'http://www.w3.org/2000/svg';
  const W = 360, H = 64;
  const el = (name, attrs, parent) => {
    const e = document.createElementNS(NS, name);
    for (const k of Object.keys(attrs)) e.setAttribute(k, String(attrs[k]));
    if (parent) parent.appendChild(e);
    return e;
  };
  const svgIn = (box, cls, label) => {
    let svg = box.querySelector('svg.' + cls);
    if (!svg) {
      svg = el('svg', { class: cls, width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': label }, box);
    }
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    el('rect', { x: 0, y: 0, width: W, height: H, fill: '#fff', stroke: '#dde1e7' }, svg);
    return svg;
  };
  const caption = (svg, text) => { el('text', { x: 4, y: 11, 'font-size': 10, fill: '#687384' }, svg).textContent = text; };
  const sum = (pts) => pts.reduce((n, p) => n + (p[1] || 0), 0);
  const last = (pts) => { for (let i = pts.length - 1; i >= 0; i--) if (pts[i][1] !== null) return pts[i][1]; return null; };
  const fmt = (s) => s === null ? '-' : s < 120 ? Math.round(s) + ' s' : s < 7200 ? Math.round(s / 60) + ' min' : (s / 3600).toFixed(1) + ' h';

  function bars(svg, synced, failed) {
    const n = synced.length, bw = W / n;
    const max = Math.max(1, ...synced.map((p) => p[1] || 0));
    const fmax = Math.max(1, ...failed.map((p) => p[1] || 0));
    const mid = H * 0.7;
    synced.forEach((p, i) => { if (p[1]) { const h = Math.max(1, (p[1] / max) * (mid - 4)); el('rect', { class: 'synced', x: i * bw, y: mid - h, width: Math.max(1, bw - 0.5), height: h, fill: '#2a9d4b' }, svg).appendChild(el('title', {}, null)).textContent = p[1] + ' synced'; } });
    failed.forEach((p, i) => { if (p[1]) { const h = Math.max(3, (p[1] / fmax) * (H - mid - 2)); el('rect', { class: 'failed', x: i * bw, y: mid, width: Math.max(2, bw), height: h, fill: '#d0021b' }, svg).appendChild(el('title', {}, null)).textContent = p[1] + ' failed'; } });
    el('line', { x1: 0, x2: W, y1: mid, y2: mid, stroke: '#9aa5b1' }, svg);
    caption(svg, 'records per minute: synced (up to ' + max + '), failed (down)');
  }

  function line(svg, pts, limit, color, what, show) {
    const vals = pts.map((p) => p[1]).filter((v) => v !== null);
    const max = Math.max(1, limit || 0, ...vals) * 1.1;
    const x = (i) => (i + 0.5) * (W / pts.length);
    const y = (v) => H - 2 - (v / max) * (H - 6);
    let d = '';
    pts.forEach((p, i) => { if (p[1] !== null) d += (d && pts[i - 1] && pts[i - 1][1] !== null ? 'L' : 'M') + x(i).toFixed(1) + ' ' + y(p[1]).toFixed(1); });
    if (limit) el('line', { class: 'limit', x1: 0, x2: W, y1: y(limit), y2: y(limit), stroke: '#d0021b', 'stroke-dasharray': '4 3' }, svg);
    const over = limit && last(pts) !== null && last(pts) > limit;
    caption(svg, what + ' (highest ' + show(vals.length ? Math.max(...vals) : null) + (limit ? ', limit ' + show(limit) : '') + ')');
    if (d) el('path', { class: 'series', d, fill: 'none', stroke: over ? '#d0021b' : color, 'stroke-width': over ? 2.5 : 1.5 }, svg);
    // The latest value as a dot: a series of one point has no line to show.
    for (let i = pts.length - 1; i >= 0; i--) {
      if (pts[i][1] === null) continue;
      el('circle', { class: 'now', cx: x(i), cy: y(pts[i][1]), r: 2.5, fill: over ? '#d0021b' : color }, svg);
      break;
    }
  }

  function summary(box, html, bad) {
    const p = box.querySelector('.flow-sum');
    p.innerHTML = html;
    p.className = 'flow-sum' + (bad ? ' bad' : '');
  }

  async function refresh() {
    const span = Number(document.getElementById('flow-span').value) || 180;
    let f;
    try {
      const res = await fetch('/api/flow?minutes=' + span, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
      if (!res.ok) throw new Error('HTTP ' + res.status);
      f = await res.json();
    } catch (err) {
      document.getElementById('flow-updated').textContent = 'failed: ' + err.message;
      return;
    }
    for (const box of root.querySelectorAll('[data-stream]')) {
      const s = f.streams[box.dataset.stream];
      const synced = sum(s.synced), failed = sum(s.failed), recent = sum(s.failed.slice(-10)), lag = last(s.lag);
      const lagBad = f.lagLimitSeconds !== null && lag !== null && lag > f.lagLimitSeconds;
      summary(box, '<span class="synced-total">' + synced + '</span> synced, <span class="failed-total">' + failed + '</span> failed' + (recent ? ' (' + recent + ' in the last 10 min)' : '') + ' · behind <span class="lag-now">' + fmt(lag) + '</span>', recent > 0 || lagBad);
      const jobs = svgIn(box, 'jobs', box.dataset.stream + ': records synced and failed per minute');
      jobs.dataset.synced = String(synced);
      jobs.dataset.failed = String(failed);
      bars(jobs, s.synced, s.failed);
      const lagSvg = svgIn(box, 'lag', box.dataset.stream + ': feed lag');
      lagSvg.dataset.last = lag === null ? '' : String(lag);
      line(lagSvg, s.lag, f.lagLimitSeconds, '#1f6feb', 'feed behind', fmt);
    }
    for (const box of root.querySelectorAll('[data-class]')) {
      const b = f.budget[box.dataset.class];
      const now = last(b.perMinute);
      const limit = b.limitPerMinute;
      summary(box, (now === null ? '-' : now) + ' requests in the last minute' + (limit ? ' of ' + (limit < 10 ? limit.toFixed(1) : limit) + '/min' : ''), limit !== null && now !== null && now >= limit);
      const svg = svgIn(box, 'budget', box.dataset.class + ': requests per minute');
      line(svg, b.perMinute, limit, '#687384', 'requests per minute', (v) => v === null ? '-' : String(Math.round(v * 10) / 10));
    }
    document.getElementById('flow-updated').textContent = new Date(f.now).toISOString().slice(11, 19) + ' UTC';
  }
  document.getElementById('flow-span').addEventListener('change', refresh);
  refresh();
  setInterval(refresh, Number(root.dataset.refreshMs) || 5000);
})();
`;
