/** The report's sections of issues 22 and 30: a total shared with another client, and no budget at all (bench/run.ts). */
import { runSharedBudget, type SharedBudgetFigures } from '../shared-budget.js';
import { runUnbudgeted } from '../unbudgeted.js';
import type { BenchOptions } from './bench-options.js';
import type { Part } from './bench-doc.js';
import { markdownTable, textTable } from './tables.js';

type Measured = Pick<Part, 'title' | 'body'>;
const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
/** The shared measurement lasts at least this long (the issue's target is over 90 s). */
const SHARED_MIN_SECONDS = 90;
/** The other client's rates, as parts of the total (200, 400 and 800 of 1,200 a minute). */
const OTHER_PARTS = [1 / 6, 1 / 3, 2 / 3];
const KINDS = ['every-answer', 'on-429'] as const;
const kindText = (k: (typeof KINDS)[number]) => (k === 'on-429' ? 'on 429s only' : 'on every answer');

export async function sharedSection(o: BenchOptions, say: (line: string) => void): Promise<Measured> {
  const seconds = Math.max(SHARED_MIN_SECONDS, o.seconds);
  const total = o.totals[0] ?? 1200;
  const latencyMs = 50;
  const runs: SharedBudgetFigures[] = [];
  for (const part of OTHER_PARTS) {
    const other = Math.round(total * part);
    for (const rateHeaders of KINDS) {
      say(
        `shared: ${total} requests/min in total, another client spending ${other}/min; X-RateLimit-* ${kindText(rateHeaders)}; ${o.processes} worker processes for ${seconds} s`,
      );
      const f = await runSharedBudget({
        total,
        other,
        seconds,
        processes: o.processes,
        latencyMs,
        adaptive: true,
        rateHeaders,
        profile: o.profile,
        log: say,
      });
      runs.push(f);
      say(
        textTable(
          ['headers', 'other/min', 'orders/min', 'of free', 'other 429s', 'other sent', 'other 429 share', 'workers 429s'],
          [[rateHeaders, other, f.ordersPerMinute, pct(f.ofFair), f.otherRateLimited, f.otherSent, pct(f.otherShare429), f.workers429]],
        ),
      );
    }
  }
  const met = (f: SharedBudgetFigures) => f.ofFair >= 0.85 && f.otherShare429 <= 0.02;
  const verdict = (k: (typeof KINDS)[number]) => {
    const rows = runs.filter((f) => f.rateHeaders === k);
    return (
      `Headers ${kindText(k)}: ${rows.map((f) => `**${pct(f.ofFair)}** and **${pct(f.otherShare429)}** at ${f.other}/min`).join(', ')}; ` +
      `${rows.every(met) ? 'met' : 'NOT met'}`
    );
  };
  const ratios = OTHER_PARTS.map((_, i) => runs[2 * i + 1]!.ofFair / Math.max(0.001, runs[2 * i]!.ofFair));
  return {
    title: 'A total shared with another client of the account',
    body: [
      `The sandbox allows ${total} requests a minute for every client of the account together (fixed 1-minute windows, ${latencyMs} ms latency), and answers in two ways, side by side in this run: ` +
        "`X-RateLimit-Limit`, `-Remaining` and `-Reset` on every answer, or `X-RateLimit-Limit` and `-Reset` on its 429s only (`rateHeaders: 'on-429'`, all that the public evidence shows of the real service). " +
        `Another client of the account (test/kit/other-client.ts: a merchant's other connector) sends one GET at a steady pace, ${runs
          .map((f) => f.other)
          .filter((v, i, a) => a.indexOf(v) === i)
          .join(', ')} a minute, whatever the answers say. ` +
        `${o.processes} worker processes of this program share \`INVENTORY_REQUESTS_PER_MINUTE\` = ${total} (and as much per class) through Redis, with jobs at once sized from the rate and the adaptive rate on. ` +
        'The free part for this program is (total − other) / 4 orders a minute (an order is 4 POSTs). ' +
        `Each row measures ${seconds} s, from 30 s after the first completed order or, when later, from the end of the first whole window of the service after it, or of the window in which the workers met their first 429 ` +
        '(with the headers on 429s only, a window is spent before anything is known of the others; what the other client met until then is the warm-up column).',
      '',
      `Commands: \`npm run bench -- --only shared --seconds ${seconds} --processes ${o.processes}\`, or one row: \`npx tsx bench/shared-budget.ts --total ${total} --other N --seconds ${seconds} --processes ${o.processes} [--on-429]\``,
      '',
      markdownTable(
        [
          'X-RateLimit-*',
          'other client /min',
          'orders/min',
          'of free (total − other) / 4',
          "other client's requests",
          'answered 429',
          'share 429',
          'warm-up s',
          'share 429 in the warm-up',
          "this program's 429s",
        ],
        runs.map((f) => [
          kindText(f.rateHeaders),
          f.other,
          f.ordersPerMinute,
          pct(f.ofFair),
          f.otherSent,
          f.otherRateLimited,
          pct(f.otherShare429),
          f.warmupSeconds,
          pct(f.warmupOtherShare429),
          f.workers429,
        ]),
      ),
      '',
      `Targets: at least 85% of the free part, at most 2% of the other client's requests answered 429. ${verdict('every-answer')}. ${verdict('on-429')}. ` +
        `On 429s only against on every answer, orders a minute: ${OTHER_PARTS.map((p, i) => `${ratios[i]!.toFixed(2)}x at ${Math.round(total * p)}/min`).join(', ')}.`,
    ],
  };
}

export async function unbudgetedSection(o: BenchOptions, say: (line: string) => void): Promise<Measured> {
  say('unbudgeted: 200 orders at 25 ms latency, no budget: sync --once against a naive sequential client');
  const f = await runUnbudgeted({ orders: 200, latencyMs: 25, runs: o.runs, tsx: o.tsx, profile: o.profile, log: say });
  return {
    title: 'No budget: the CLI against a naive sequential client',
    body: [
      `${f.orders} orders at ${f.latencyMs} ms of service latency (plus up to a fifth as jitter) and no budget on the sandbox; the CLI is told budgets of 1,000,000 a minute (it always paces to some). ` +
        `This program is the real CLI, process start included: \`${f.command}\` with a feed of the ${f.orders} orders, once with jobs at once sized from the rate and latency (the default) ` +
        "and once with `WORKER_CONCURRENCY=16` (the fixed default before issue 22). The naive client (bench/lib/naive-client.ts) reads the facilities and products, then sends each order's four POSTs one after another with fetch: no budget, no queue, no Redis, no process start.",
      '',
      `Command: \`npx tsx bench/unbudgeted.ts --orders ${f.orders} --latency ${f.latencyMs} --runs ${o.runs}${o.tsx ? ' --tsx' : ''}\``,
      '',
      markdownTable(
        ['run', 'sync --once s (sized)', 'sync --once s (WORKER_CONCURRENCY=16)', 'naive s', 'naive / sized', 'naive / fixed 16'],
        f.runs.map((r, i) => [
          i + 1,
          r.sizedSeconds,
          r.fixed16Seconds,
          r.naiveSeconds,
          `${(r.naiveSeconds / r.sizedSeconds).toFixed(1)}x`,
          `${(r.naiveSeconds / r.fixed16Seconds).toFixed(1)}x`,
        ]),
      ),
      '',
      `Medians: sized **${f.medianSizedSeconds} s**, fixed 16 ${f.medianFixed16Seconds} s, naive ${f.medianNaiveSeconds} s; the CLI is **${f.ratio}x** the naive client (target at least 10x): ${f.ratio >= 10 ? 'met' : 'NOT met'}; ${f.ratioFixed16}x with the fixed 16.`,
    ],
  };
}
