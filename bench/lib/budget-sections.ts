/** The report's sections of issue 22: a total shared with another client, and no budget at all (bench/run.ts). */
import { runSharedBudget, type SharedBudgetFigures } from '../shared-budget.js';
import { runUnbudgeted } from '../unbudgeted.js';
import type { BenchOptions } from './bench-options.js';
import type { Part } from './bench-doc.js';
import { markdownTable, textTable } from './tables.js';

type Measured = Pick<Part, 'title' | 'body'>;
const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
/** The shared measurement lasts at least this long (the target is over 90 s). */
const SHARED_MIN_SECONDS = 90;

export async function sharedSection(o: BenchOptions, say: (line: string) => void): Promise<Measured> {
  const seconds = Math.max(SHARED_MIN_SECONDS, o.seconds);
  const total = o.totals[0] ?? 1200;
  const other = Math.round(total / 3);
  const latencyMs = 50;
  const runs: SharedBudgetFigures[] = [];
  for (const adaptive of [true, false]) {
    say(
      `shared: ${total} requests/min in total, another client spending ${other}/min; adaptive rate ${adaptive ? 'on' : 'off'}; ${o.processes} worker processes for ${seconds} s`,
    );
    const f = await runSharedBudget({ total, other, seconds, processes: o.processes, latencyMs, adaptive, profile: o.profile, log: say });
    runs.push(f);
    say(
      textTable(
        ['adaptive', 'orders/min', 'of fair', 'other 429s', 'other sent', 'other 429 share', 'workers 429s'],
        [[adaptive ? 'on' : 'off', f.ordersPerMinute, pct(f.ofFair), f.otherRateLimited, f.otherSent, pct(f.otherShare429), f.workers429]],
      ),
    );
  }
  const [on, off] = runs as [SharedBudgetFigures, SharedBudgetFigures];
  const met = on.ofFair >= 0.85 && on.otherShare429 <= 0.02;
  return {
    title: 'A total shared with another client of the account',
    body: [
      `The sandbox allows ${total} requests a minute for every client of the account together (fixed 1-minute windows, \`X-RateLimit-Limit\`, \`-Remaining\` and \`-Reset\` on every answer, ${latencyMs} ms latency). ` +
        `Another client of the account (bench/lib/other-client.ts: a merchant's other connector) sends one GET every ${Math.round(60_000 / other)} ms, ${other} a minute, whatever the answers say. ` +
        `${o.processes} worker processes of this program share \`INVENTORY_REQUESTS_PER_MINUTE\` = ${total} (and as much per class) through Redis, with jobs at once sized from the rate. ` +
        `The fair part of this program is (total − other) / 4 = ${on.fairPerMinute} orders a minute (an order is 4 POSTs). Each row measures ${seconds} s after a warm-up of 30 s from the first completed order; ` +
        '"adaptive off" is `INVENTORY_ADAPTIVE_RATE=off`, the behaviour before issue 22 (pacing to the configured total alone).',
      '',
      `Commands: \`npm run bench -- --only shared --seconds ${seconds} --processes ${o.processes}\`, or one row: \`npx tsx bench/shared-budget.ts --total ${total} --other ${other} --seconds ${seconds} --processes ${o.processes} [--off]\``,
      '',
      markdownTable(
        [
          'adaptive rate',
          'orders/min',
          'of fair (total − other) / 4',
          "other client's requests",
          'answered 429',
          'share 429',
          'share 429 in the warm-up',
          "this program's 429s",
        ],
        runs.map((f) => [
          f.adaptive ? 'on' : 'off (before)',
          f.ordersPerMinute,
          pct(f.ofFair),
          f.otherSent,
          f.otherRateLimited,
          pct(f.otherShare429),
          pct(f.warmupOtherShare429),
          f.workers429,
        ]),
      ),
      '',
      `Adaptive on: **${pct(on.ofFair)}** of the fair part and **${pct(on.otherShare429)}** of the other client's requests answered 429 (targets: at least 85%, at most 2%): ${met ? 'met' : 'NOT met'}. ` +
        `Off, as before: ${pct(off.ofFair)} of the fair part, taken from the other client, ${pct(off.otherShare429)} of whose requests were answered 429.`,
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
