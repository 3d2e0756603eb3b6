/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { useAt } from './layout.js';
/** Spans the charts offer, in minutes, with the default marked. */
const SPANS: Array<[minutes: number, label: string]> = [
  [60, '1 h'],
  [180, '3 h'],
  [720, '12 h'],
  [1440, '24 h'],
];

/** The span shown first: an hour, where a minute's bar is wide enough to read. */
const DEFAULT_SPAN = 60;

/** The request classes the charts draw (those /api/flow answers). */
const BUDGET_CLASSES = ['post', 'get', 'collection'];

function Box({ id, title, data, plots }: { id: string; title: string; data: Record<string, string>; plots: string[] }) {
  return (
    <div class="chart" id={id} {...data}>
      <h3>{title}</h3>
      <p class="flow-sum muted">loading…</p>
      <div class="plots">
        {plots.map((p) => (
          <div class={`plot ${p}`}></div>
        ))}
      </div>
    </div>
  );
}

/**
 * The overview's live charts: a box per stream (records a minute, feed lag) and per request class, which the
 * dashboard's own script (/assets/flow-charts.js, built from browser/flow-charts.ts) fills from /api/flow
 * (under `data-base`, the account's path, on an account's pages of ACCOUNTS_FILE).
 */
export function FlowSection({ streams, refreshMs = 5000 }: { streams: string[]; refreshMs?: number }) {
  const base = useAt()('');
  return (
    <section id="flow-section">
      <h2>
        Flow{' '}
        <span class="muted">
          live (updated <span id="flow-updated">-</span>)
        </span>{' '}
        <select id="flow-span" aria-label="time span">
          {SPANS.map(([minutes, label]) => (
            <option value={String(minutes)} selected={minutes === DEFAULT_SPAN}>
              {label}
            </option>
          ))}
        </select>
      </h2>
      <div id="flow" class="charts" data-refresh-ms={String(refreshMs)} data-base={base || undefined}>
        {streams.map((s) => (
          <Box id={`flow-${s}`} title={s} data={{ 'data-stream': s }} plots={['jobs', 'lag']} />
        ))}
      </div>
      <h3 class="charts-head">Requests to the service, against each budget</h3>
      <div id="flow-budgets" class="charts budgets">
        {BUDGET_CLASSES.map((c) => (
          <Box id={`flow-budget-${c}`} title={`budget: ${c}`} data={{ 'data-class': c }} plots={['budget']} />
        ))}
      </div>
    </section>
  );
}
