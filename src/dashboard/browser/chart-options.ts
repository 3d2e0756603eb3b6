import uPlot from 'uplot';
import { COLORS, duration, lastIndex, rate } from './chart-format.js';

const FONT = '12px system-ui, sans-serif';
const LABEL_FONT = '600 12px system-ui, sans-serif';
const HEIGHT = 190;

/** Every chart's x axis is time, in UTC like the rest of the dashboard. */
const utc = (ts: number) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC');

/** A y range from 0 to a little above the highest of the values and `atLeast`, so a limit line always shows. */
const upTo =
  (atLeast: number) =>
  (_u: uPlot, _min: number | null, max: number | null): uPlot.Range.MinMax => [0, Math.max(atLeast, max ?? 0) * 1.2 || 1];

function axis(label: string, values?: (v: number) => string): uPlot.Axis {
  return {
    label,
    font: FONT,
    labelFont: LABEL_FONT,
    stroke: COLORS.axis,
    grid: { stroke: COLORS.grid, width: 1 },
    ticks: { stroke: COLORS.grid, width: 1 },
    size: 56,
    ...(values ? { values: (_u: uPlot, splits: number[]) => splits.map(values) } : {}),
  };
}

/** A time tick as HH:MM (UTC), with the day when the span passes midnight. */
function timeTicks(u: uPlot, splits: number[]): string[] {
  const first = u.scales.x?.min ?? 0;
  const last = u.scales.x?.max ?? 0;
  const days = new Date(first * 1000).toISOString().slice(0, 10) !== new Date(last * 1000).toISOString().slice(0, 10);
  return splits.map((t) => {
    const iso = new Date(t * 1000).toISOString();
    return days && iso.slice(11, 16) === '00:00' ? iso.slice(5, 10) : iso.slice(11, 16);
  });
}

/** Half a minute either side of the span, so the first and last minutes' bars are drawn whole. */
const X_SCALE: uPlot.Scales = { x: { time: true, range: (_u, min, max) => [(min ?? 0) - 30, (max ?? 0) + 30] } };

function base(title: string, width: number, yAxis: uPlot.Axis): uPlot.Options {
  return {
    title,
    width,
    height: HEIGHT,
    tzDate: utc,
    legend: { live: false },
    cursor: { drag: { x: false, y: false } },
    axes: [{ ...axis('time (UTC)'), size: 30, values: timeTicks }, yAxis],
    series: [{}],
  };
}

/** Tick steps of a duration axis, in seconds: whole seconds, minutes and hours. */
const DURATION_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

/** A dashed red line at `value` (a budget, an alert limit), labelled in the legend and on the line itself. */
function limitSeries(label: string): uPlot.Series {
  return { label, stroke: COLORS.limit, width: 1.5, dash: [6, 4], points: { show: false } };
}

/** Writes `text` above the right end of the series `idx` (a constant line). */
function lineLabel(idx: number, text: string): uPlot.Plugin {
  return {
    hooks: {
      draw: (u: uPlot) => {
        const v = u.data[idx]?.[0];
        const scale = u.series[idx]?.scale;
        if (v === null || v === undefined || !scale) return;
        const dpr = window.devicePixelRatio || 1;
        const y = u.valToPos(v, scale, true);
        const { ctx } = u;
        ctx.save();
        ctx.font = `600 ${11 * dpr}px system-ui, sans-serif`;
        ctx.fillStyle = COLORS.limit;
        ctx.textAlign = 'right';
        ctx.textBaseline = 'bottom';
        ctx.fillText(text, u.bbox.left + u.bbox.width - 4 * dpr, y - 3 * dpr);
        ctx.restore();
      },
    },
  };
}

/** A dot on the latest value of a line: a series of one point has no line to show. */
const lastDot = (size: number, fill: string): uPlot.Series.Points => ({
  show: true,
  size,
  fill,
  filter: (u: uPlot, idx: number) => {
    const i = lastIndex(u.data[idx] ?? []);
    return i < 0 ? null : [i];
  },
});

const bars = (align: -1 | 1) => uPlot.paths.bars?.({ size: [0.45, 16, 3], align });

/** Records synced (green) and failed for good (red) a minute, as bars side by side. */
export function recordsChart(width: number): uPlot.Options {
  return {
    ...base(
      'Records a minute',
      width,
      axis('records / min', (v) => (Number.isInteger(v) ? String(v) : '')),
    ),
    scales: { ...X_SCALE, y: { range: upTo(1) } },
    series: [
      {},
      { label: 'synced', stroke: COLORS.synced, fill: COLORS.synced, paths: bars(-1), points: { show: false } },
      { label: 'failed for good', stroke: COLORS.failed, fill: COLORS.failed, paths: bars(1), points: { show: false } },
    ],
  };
}

/** How far behind the feed is, with the alert limit (ALERT_LAG_SECONDS) as a labelled dashed line. */
export function lagChart(width: number, limitSeconds: number | null): uPlot.Options {
  const limit = limitSeconds === null ? [] : [limitSeries(`alert limit (${duration(limitSeconds)})`)];
  return {
    ...base('Feed behind', width, { ...axis('behind', duration), incrs: DURATION_STEPS }),
    scales: { ...X_SCALE, y: { range: upTo(limitSeconds ?? 60) } },
    series: [{}, { label: 'behind', stroke: COLORS.lag, width: 2, points: lastDot(7, COLORS.lag) }, ...limit],
    plugins: limitSeconds === null ? [] : [lineLabel(2, `alert at ${duration(limitSeconds)}`)],
  };
}

/**
 * Requests of one class against its budget, in the budget's unit: a minute's requests for a budget a minute, the
 * hour's (up to each minute) for a budget an hour; the budget as a labelled dashed line.
 */
export function budgetChart(width: number, limitValue: number | null, unit: 'min' | 'h'): uPlot.Options {
  const limit = limitValue === null ? [] : [limitSeries(`budget (${rate(limitValue, unit)})`)];
  const title = unit === 'h' ? 'Requests in the hour before' : 'Requests a minute';
  return {
    ...base(title, width, axis(unit === 'h' ? 'requests / h' : 'requests / min')),
    scales: { ...X_SCALE, y: { range: upTo(limitValue ?? 1) } },
    series: [
      {},
      { label: 'requests', stroke: COLORS.requests, fill: 'rgba(86,96,110,0.12)', width: 1.5, points: lastDot(6, COLORS.requests) },
      ...limit,
    ],
    plugins: limitValue === null ? [] : [lineLabel(2, `budget ${rate(limitValue, unit)}`)],
  };
}
