/** The report's section of issue 37: the first minutes of a total shared with another client (bench/run.ts). */
import { runSharedStart, type SharedStartFigures, type SharedStartOptions } from '../shared-start.js';
import type { BenchOptions } from './bench-options.js';
import type { Part } from './bench-doc.js';
import { median } from './median.js';
import { markdownTable } from './tables.js';

type Measured = Pick<Part, 'title' | 'body'>;
const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
const kindText = (k: SharedStartOptions['rateHeaders']) => (k === 'on-429' ? 'on 429s only' : 'on every answer');
const shapeText = (s: SharedStartOptions['shape']) => (s === 'fresh' ? '`sync --once` again and again' : 'one long `worker`');
/** Seconds of a shared run: long enough for a few `sync --once`, the first window in it. */
const SHARED_SECONDS = 240;
const ALONE_SECONDS = 150;
const ORDERS = 150;

/** Runs with headers on 429s only `o.runs` times (the mode the slow start is for), on every answer once. */
export async function sharedStartSection(o: BenchOptions, say: (line: string) => void): Promise<Measured> {
  const total = o.totals[0] ?? 1200;
  const other = Math.round(total / 3);
  const rows: Array<{ label: string[]; runs: SharedStartFigures[] }> = [];
  for (const rateHeaders of ['on-429', 'every-answer'] as const)
    for (const [shape, who] of [
      ['fresh', other],
      ['worker', other],
      ['fresh', 0],
      ['worker', 0],
    ] as const) {
      const runs: SharedStartFigures[] = [];
      const n = rateHeaders === 'on-429' && who > 0 ? o.runs : 1;
      for (let i = 0; i < n; i++) {
        say(`shared-start: ${shapeText(shape)}, other client ${who}/min, headers ${kindText(rateHeaders)}, run ${i + 1} of ${n}`);
        const f = await runSharedStart({
          shape,
          rateHeaders,
          total,
          other: who,
          seconds: who > 0 ? SHARED_SECONDS : ALONE_SECONDS,
          orders: ORDERS,
          tsx: o.tsx,
          log: say,
        });
        say(`  ${JSON.stringify(f)}`);
        runs.push(f);
      }
      rows.push({ label: [kindText(rateHeaders), shapeText(shape), String(who)], runs });
    }
  const med = (rs: SharedStartFigures[], f: (x: SharedStartFigures) => number) => median(rs.map(f));
  const shared = rows.filter((r) => r.runs[0]!.other > 0);
  const alone = rows.filter((r) => r.runs[0]!.other === 0);
  const met =
    shared.every((r) => r.runs.every((f) => f.otherShare429 <= 0.02) && med(r.runs, (f) => f.ofFree) >= 0.85) &&
    alone.every((r) => r.runs.every((f) => f.fullAfterSeconds !== null && f.fullAfterSeconds <= 120));
  return {
    title: 'The first minutes of a shared total: slow start and the remembered share',
    body: [
      `As section 10 (${total} requests a minute in total, fixed 1-minute windows, 50 ms latency; the other client at ${other} a minute from a second before this program), ` +
        'but this program is the real CLI from dist/ on a fresh prefix (nothing remembered), and every figure is over the whole run, its first window included: ' +
        `either \`sync --once\` started again and again with ${ORDERS} new orders each until ${SHARED_SECONDS} s have passed (each a fresh process: the first slow-starts, the next start from the share the first learnt, remembered in Redis), ` +
        `or one \`worker\` for ${SHARED_SECONDS} s. Alone (no other client, ${ALONE_SECONDS} s, both shapes): the seconds until the share of the total is all of it. ` +
        `Headers on 429s only: the median of ${o.runs} runs, and the worst run's 429 share; on every answer (where nothing changes): one run.`,
      '',
      `Command: \`npm run bench -- --only shared-start --runs ${o.runs}\`, or one run: \`npx tsx bench/shared-start.ts --shape fresh|worker --total ${total} --other ${other} --seconds ${SHARED_SECONDS} [--on-429]\``,
      '',
      markdownTable(
        [
          'X-RateLimit-*',
          'this program',
          'other client /min',
          'runs',
          's',
          'processes',
          'orders/min',
          'of free (total − other) / 4',
          'other client: 429 share (worst run)',
          'in the first minute',
          'share all the budget after s',
        ],
        rows.map(({ label, runs }) => [
          ...label,
          runs.length,
          med(runs, (f) => f.seconds),
          med(runs, (f) => f.processes),
          med(runs, (f) => f.ordersPerMinute),
          pct(med(runs, (f) => f.ofFree)),
          runs[0]!.other > 0 ? `${pct(med(runs, (f) => f.otherShare429))} (${pct(Math.max(...runs.map((f) => f.otherShare429)))})` : '–',
          runs[0]!.other > 0 ? pct(med(runs, (f) => f.firstMinuteShare429)) : '–',
          runs.every((f) => f.fullAfterSeconds !== null) ? med(runs, (f) => f.fullAfterSeconds!) : 'not in the run',
        ]),
      ),
      '',
      "Targets: the other client's 429 share at most 2% in every run, this program at least 85% of the free part, alone the full budget within 2 minutes: " +
        `${met ? 'met' : 'NOT met'}.`,
    ],
  };
}
