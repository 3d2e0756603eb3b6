/**
 * The report's section of issues 37 and 49: the first minutes of a total shared with another client, on each shape of
 * the service's windows (bench/run.ts).
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSharedStart, type SharedStartFigures, type SharedStartOptions } from '../shared-start.js';
import { buildDist } from './build-dist.js';
import { WINDOW_SHAPES, type WindowShape } from '../../src/sandbox/sandbox-options.js';
import type { BenchOptions } from './bench-options.js';
import type { Part } from './bench-doc.js';
import { median } from './median.js';
import { markdownTable } from './tables.js';

type Measured = Pick<Part, 'title' | 'body'>;
const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
const kindText = (k: SharedStartOptions['rateHeaders']) => (k === 'on-429' ? 'on 429s only' : 'on every answer');
/** A chain of `sync --once` for 120 s beside the other client, one worker for 90 s, alone one cold `sync --once` of 300 orders. */
const CASES = [
  { name: 'chain of `sync --once` (150 orders each)', shape: 'fresh', other: true, seconds: 120, orders: 150 },
  { name: 'one `worker`', shape: 'worker', other: true, seconds: 90, orders: 150 },
  { name: 'alone: one cold `sync --once` of 300 orders', shape: 'fresh', other: false, seconds: 1, orders: 300 },
] as const;

interface Row {
  window: WindowShape;
  rateHeaders: SharedStartOptions['rateHeaders'];
  name: string;
  runs: SharedStartFigures[];
}

/** One shape's rows: headers on 429s only `o.runs` times each, on every answer one worker run. */
async function shapeRows(
  window: WindowShape,
  o: BenchOptions & { built: boolean },
  total: number,
  say: (line: string) => void,
): Promise<Row[]> {
  const rows: Row[] = [];
  const plan = [
    ...CASES.map((c) => ({ ...c, rateHeaders: 'on-429' as const, n: o.runs })),
    { ...CASES[1], rateHeaders: 'every-answer' as const, n: 1 },
  ];
  for (const c of plan) {
    const runs: SharedStartFigures[] = [];
    for (let i = 0; i < c.n; i++) {
      say(`shared-start: ${window} windows, ${c.name}, headers ${kindText(c.rateHeaders)}, run ${i + 1} of ${c.n}`);
      const f = await runSharedStart({
        shape: c.shape,
        rateHeaders: c.rateHeaders,
        window,
        total,
        other: c.other ? Math.round(total / 3) : 0,
        seconds: c.seconds,
        orders: c.orders,
        tsx: o.tsx || !o.built,
        built: o.built,
        log: (line) => say(`  [${window}] ${line.trim()}`),
      });
      say(`  [${window}] ${JSON.stringify(f)}`);
      runs.push(f);
    }
    rows.push({ window, rateHeaders: c.rateHeaders, name: c.name, runs });
  }
  return rows;
}

/** The four shapes side by side (each its own sandbox, Redis prefix and processes), so that the section takes one shape's time. */
export async function sharedStartSection(o: BenchOptions, say: (line: string) => void): Promise<Measured> {
  const total = o.totals[0] ?? 1200;
  const other = Math.round(total / 3);
  const built = !o.tsx && buildDist(resolve(dirname(fileURLToPath(import.meta.url)), '../..'), say);
  const rows = (await Promise.all(WINDOW_SHAPES.map((w) => shapeRows(w, { ...o, built }, total, say)))).flat();
  const med = (rs: SharedStartFigures[], f: (x: SharedStartFigures) => number) => median(rs.map(f));
  const worst = (rs: SharedStartFigures[], f: (x: SharedStartFigures) => number) => Math.max(...rs.map(f));
  const verdict = (r: Row) => {
    if (r.rateHeaders === 'every-answer') return '–';
    const shared = r.runs[0]!.other > 0;
    const ok = shared
      ? worst(r.runs, (f) => f.otherShare429) <= 0.02 &&
        worst(r.runs, (f) => f.firstMinuteShare429) <= 0.02 &&
        med(r.runs, (f) => f.ofFree) >= 0.85
      : med(r.runs, (f) => f.ofFree) >= 0.85;
    return ok ? 'met' : 'NOT met';
  };
  return {
    title: 'The first minutes of a shared total: slow start and the remembered share',
    body: [
      `As section 10 (${total} requests a minute in total, 50 ms latency; the other client at ${other} a minute, deaf to the answers, at work a window (60 s) before this program starts, as another connector of the account is; its figures count from this program's start), ` +
        'but on each of the sandbox\'s window shapes (docs/sandbox-faults.md, "Window shapes": fixed windows aligned on the epoch, fixed at an offset of 20 s, ' +
        'a sliding window, a token bucket of 120), and this program is the real CLI from dist/ on a fresh prefix (nothing remembered); every figure is over the whole run, its first window included. ' +
        `Beside the other client: a chain of \`sync --once\` with 150 new orders each until 120 s have passed (the first starts cold, the next from the share remembered in Redis), and one \`worker\` for 90 s; ` +
        'alone: one cold `sync --once` of 300 orders, its orders a minute against the budget / 4 (an order is 4 requests). ' +
        `Headers on 429s only: the median of ${o.runs} runs and the worst run's 429 shares; on every answer (no slow start there; on sliding windows and a token bucket the share is read from 429s, docs/budget-start.md "Remaining with no window's end"): one worker run.`,
      '',
      `Command: \`npm run bench -- --only shared-start --runs ${o.runs}\`, or one run: \`npx tsx bench/shared-start.ts --shape fresh|worker --total ${total} --other ${other} --seconds 90 --window fixed|offset|sliding|token-bucket [--on-429] [--rise N]\``,
      '',
      markdownTable(
        [
          'windows',
          'X-RateLimit-*',
          'this program',
          'runs',
          's',
          'processes',
          'orders/min',
          'of free ((total − other) / 4)',
          'other client: 429 share, median (worst)',
          'in the first minute (worst)',
          'share all the budget after s',
          'goals',
        ],
        rows.map((r) => [
          r.window,
          kindText(r.rateHeaders),
          r.name,
          r.runs.length,
          med(r.runs, (f) => f.seconds),
          med(r.runs, (f) => f.processes),
          med(r.runs, (f) => f.ordersPerMinute),
          pct(med(r.runs, (f) => f.ofFree)),
          r.runs[0]!.other > 0 ? `${pct(med(r.runs, (f) => f.otherShare429))} (${pct(worst(r.runs, (f) => f.otherShare429))})` : '–',
          r.runs[0]!.other > 0 ? pct(worst(r.runs, (f) => f.firstMinuteShare429)) : '–',
          r.runs.every((f) => f.fullAfterSeconds !== null) ? med(r.runs, (f) => f.fullAfterSeconds!) : 'not in the run',
          verdict(r),
        ]),
      ),
      '',
      'Goals (issue 49): beside the other client, its 429 share at most 2% in the first minute and over the run in every run, and this program at least 85% of the free part; ' +
        'alone, at least 85% of the budget / 4 over the cold run. On fixed windows the fast rise costs the others the end of one window at the crossing: ' +
        'the trade and why the defaults choose it are in docs/budget-start.md, "The trade on fixed windows".',
    ],
  };
}
