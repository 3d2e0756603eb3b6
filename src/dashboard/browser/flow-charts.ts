/**
 * The overview's live charts, served as /assets/flow-charts.js from the dashboard's own origin. Polls /api/flow
 * and draws each stream's records and feed lag, and each request class against its budget, with uPlot.
 */
import uPlot from 'uplot';
import { clock, lastValue, rate, sum } from './chart-format.js';
import { budgetChart, lagChart, recordsChart } from './chart-options.js';
import type { FlowPoint, FlowView } from './flow-view.js';
import { feedBehindText } from '../../ops/state-words.js';

interface Drawn {
  plot: uPlot;
  /** What the options were made from: a new key makes a new chart, the same one only new data. */
  key: string;
}

const drawn = new Map<HTMLElement, Drawn>();

/** Draws `data` in `holder`, making the chart anew when `key` (its options' inputs) changed. */
function draw(holder: HTMLElement, key: string, options: (width: number) => uPlot.Options, data: uPlot.AlignedData): void {
  const had = drawn.get(holder);
  if (had && had.key === key) {
    had.plot.setData(data);
    return;
  }
  had?.plot.destroy();
  holder.replaceChildren();
  drawn.set(holder, { plot: new uPlot(options(holder.clientWidth), data, holder), key });
}

/** Says why there is no chart instead of showing an empty one. */
function empty(holder: HTMLElement, text: string): void {
  drawn.get(holder)?.plot.destroy();
  drawn.delete(holder);
  const p = document.createElement('p');
  p.className = 'flow-empty muted';
  p.textContent = text;
  holder.replaceChildren(p);
}

const times = (pts: FlowPoint[]) => pts.map((p) => p[0] / 1000);
const values = (pts: FlowPoint[]) => pts.map((p) => p[1]);

/** The line over a chart: plain text and [class, text] spans; red when `bad`. */
function summary(box: HTMLElement, parts: Array<string | [string, string]>, bad: boolean): void {
  const p = box.querySelector<HTMLElement>('.flow-sum');
  if (!p) return;
  p.replaceChildren(
    ...parts.map((part) => {
      if (typeof part === 'string') return document.createTextNode(part);
      const span = document.createElement('span');
      [span.className, span.textContent] = part;
      return span;
    }),
  );
  p.className = bad ? 'flow-sum bad' : 'flow-sum';
}

/** "1 h", "24 h", "30 min": a chart's span. */
const spanText = (minutes: number) => (minutes % 60 ? `${minutes} min` : `${minutes / 60} h`);

function drawStream(box: HTMLElement, s: FlowView['streams'][string], f: FlowView, span: number): void {
  const synced = sum(values(s.synced));
  const failed = sum(values(s.failed));
  const recent = sum(values(s.failed.slice(-10)));
  const lag = lastValue(values(s.lag));
  const lagBad = f.lagLimitSeconds !== null && lag !== null && lag > f.lagLimitSeconds;
  // "failed" is failed now, as the streams table and `status` count it; the bars count failures as they happened.
  const parts: Array<string | [string, string]> = [
    ['synced-total', `${synced}`],
    ' synced, ',
    ['failed-now', `${s.failedNow}`],
    ' failed now',
  ];
  if (failed) parts.push(`; ${failed} failure${failed === 1 ? '' : 's'} in the last ${spanText(span)} (${recent} in the last 10 min)`);
  // "behind 3 s", or what stands for it before the first catch-up ("feed not pulled yet"), as `status` says it.
  parts.push(s.feed.behindSeconds === null ? ' · feed ' : ' · behind ', [
    'lag-now',
    feedBehindText(s.feed.behindSeconds, s.feed.lastPollAt),
  ]);
  summary(box, parts, s.failedNow > 0 || lagBad);

  const jobs = box.querySelector<HTMLElement>('.jobs');
  if (jobs) {
    jobs.dataset.synced = String(synced);
    jobs.dataset.failed = String(failed);
    jobs.dataset.failedNow = String(s.failedNow);
    // A minute without records has no bar at all (a zero-height bar would still show its outline).
    const bars = (pts: FlowPoint[]) => pts.map((p) => p[1] || null);
    draw(jobs, `${span}`, recordsChart, [times(s.synced), bars(s.synced), bars(s.failed)]);
  }
  const lagBox = box.querySelector<HTMLElement>('.lag');
  if (!lagBox) return;
  lagBox.dataset.last = lag === null ? '' : String(lag);
  if (values(s.lag).every((v) => v === null)) return empty(lagBox, 'feed lag: no samples yet (the worker takes one every 15 s)');
  const limit = f.lagLimitSeconds;
  const line = limit === null ? [] : [s.lag.map(() => limit)];
  draw(lagBox, `${span}:${limit}`, (w) => lagChart(w, limit), [times(s.lag), values(s.lag), ...line]);
}

/**
 * A class's requests against its budget, in the budget's unit; the line over it says the last hour's requests, as the
 * overview's budget table does (the same samples).
 */
function drawBudget(box: HTMLElement, b: FlowView['budget'][string], span: number): void {
  const pts = b.points;
  const now = lastValue(values(pts));
  const budget = b.limit === null ? 'no budget configured' : `budget ${rate(b.limit, b.unit)}`;
  const hour = b.lastHour;
  const parts = [hour === null ? 'nothing sampled yet' : `${hour.requests} requests in the last hour`];
  if (hour !== null && b.unit === 'min' && now !== null) parts.push(`${now} in the last minute`);
  summary(box, [`${parts.join(', ')} · ${budget}`], b.limit !== null && now !== null && now >= b.limit);
  const holder = box.querySelector<HTMLElement>('.budget');
  if (!holder) return;
  holder.dataset.now = now === null ? '' : String(now);
  holder.dataset.hour = hour === null ? '' : String(hour.requests);
  // A minute's requests are the difference of two samples: none before the second sample.
  if (values(pts).every((v) => v === null)) return empty(holder, `no requests counted yet: sampling has just begun (${budget})`);
  if (sum(values(pts)) === 0) return empty(holder, `no requests yet in this span (${budget})`);
  const limitLine = b.limit === null ? [] : [pts.map(() => b.limit)];
  draw(holder, `${span}:${b.limit}:${b.unit}`, (w) => budgetChart(w, b.limit, b.unit), [times(pts), values(pts), ...limitLine]);
}

/** The overview's budget table, its last-hour cells from the same answer as the charts: the two never disagree. */
function budgetTable(f: FlowView): void {
  for (const row of document.querySelectorAll<HTMLElement>('#budget tr[data-class]')) {
    const hour = f.budget[row.dataset.class ?? '']?.lastHour;
    if (!hour) continue;
    const cell = (name: string, text: string, bad = false) => {
      const td = row.querySelector<HTMLElement>(`td.${name}`);
      if (!td) return;
      td.textContent = text;
      td.classList.toggle('bad', bad);
    };
    cell('requests-hour', String(hour.requests));
    cell('waited-hour', `${(hour.waitedMs / 1000).toFixed(1)} s`);
    cell('holds-hour', String(hour.holds), hour.holds > 0);
  }
}

async function refresh(): Promise<void> {
  const select = document.getElementById('flow-span') as HTMLSelectElement | null;
  const updated = document.getElementById('flow-updated');
  const span = Number(select?.value) || 60;
  let f: FlowView;
  try {
    // An account's pages (ACCOUNTS_FILE) read its own flow, under its path.
    const base = document.getElementById('flow')?.dataset.base ?? '';
    const res = await fetch(`${base}/api/flow?minutes=${span}`, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    f = (await res.json()) as FlowView;
  } catch (err) {
    if (updated) updated.textContent = `failed: ${err instanceof Error ? err.message : String(err)}`;
    return;
  }
  for (const box of document.querySelectorAll<HTMLElement>('[data-stream]')) {
    const s = f.streams[box.dataset.stream ?? ''];
    if (s) drawStream(box, s, f, span);
  }
  for (const box of document.querySelectorAll<HTMLElement>('#flow-budgets [data-class]')) {
    const b = f.budget[box.dataset.class ?? ''];
    if (b) drawBudget(box, b, span);
  }
  budgetTable(f);
  if (updated) updated.textContent = clock(f.now);
}

function start(): void {
  const root = document.getElementById('flow');
  if (!root) return;
  document.getElementById('flow-span')?.addEventListener('change', () => void refresh());
  window.addEventListener('resize', () => {
    for (const [holder, { plot }] of drawn) plot.setSize({ width: holder.clientWidth, height: plot.height });
  });
  void refresh();
  setInterval(() => void refresh(), Number(root.dataset.refreshMs) || 5000);
}

start();
