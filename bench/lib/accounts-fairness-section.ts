/**
 * The fair turns of issue 56 in section 16 (bench/accounts-fairness.ts): busy accounts beside a trickle of live ones,
 * more accounts with work than places, and an account weighted 2 beside one weighted 1.
 */
import { FAIRNESS_DEFAULTS, runTurnsPart, runWeightPart, type TurnsFigures, type WeightFigures } from '../accounts-fairness.js';
import { budgetDefaults } from '../../config/budget-defaults.js';
import type { BenchOptions } from './bench-options.js';
import { markdownTable } from './tables.js';

const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
const round1 = (n: number) => Math.round(n * 10) / 10;
/** A weight-2 account's share over a weight-1 one's counts as "about 2x" within this. */
const WEIGHT_TOLERANCE = 0.3;

/** The runs' sizes: the issue's world, or a small one with --quick. */
function turnsSize(o: BenchOptions) {
  const d = FAIRNESS_DEFAULTS;
  return o.quick
    ? { ...d, accounts: 50, busy: 2, backlog: 2_000, places: 2, seconds: 60, settle: 15, weightBacklog: 30_000, weightSeconds: 60 }
    : d;
}

const latencyRow = (phase: string, f: TurnsFigures, alone: boolean) => {
  const l = alone ? f.alone : f.beside;
  const occ = alone ? f.aloneOccupancy : f.besideOccupancy;
  return [phase, l.orders, l.p50Ms, l.p99Ms, l.maxMs, l.missing, occ.openMean, occ.waitingMean, occ.waitingMax];
};

function weightRows(runs: WeightFigures[]) {
  return runs.flatMap((r) =>
    r.accounts.map((a) => [
      r.shards,
      a.name,
      a.weight,
      a.shard,
      a.completed,
      a.turns,
      a.charged,
      a.heldSeconds,
      Math.round(a.completed / Math.max(0.1, a.heldSeconds)),
      a.weight === 2 ? `${r.completedRatio}x` : '',
    ]),
  );
}

/** What the busy accounts' figures say, over whole budget windows (bench/lib/budget-windows.ts). */
function busyLines(f: TurnsFigures, busyMet: boolean): string[] {
  const p = f.busyPace;
  const windows = Math.round(f.seconds / 60);
  return [
    markdownTable(
      [
        'busy accounts',
        'POST budget/min',
        'bound orders/min',
        's',
        'lowest POSTs/min ÷ 4',
        'median POSTs/min ÷ 4',
        'at ≥ 95% of bound',
        'lowest orders completed/min',
        'median orders completed/min',
      ],
      [[f.busy, f.busyBudget, f.bound, f.seconds, p.lowest, p.median, `${p.atLeast95} of ${f.busy}`, p.completedLowest, p.completedMedian]],
    ),
    '',
    `Counted over ${windows} whole budget windows: the sandboxes count a budget in fixed 1-minute windows aligned on the clock's ` +
      "minutes, and the live orders beside the backlogs start with one. POSTs ÷ 4: the POSTs each busy account's sandbox took into its " +
      'budget in those windows (its request log; a 429 takes nothing), a minute, over 4 (an order is 4 POSTs). Orders completed: its jobs ' +
      `completed in the same windows (finishedOn). All ${f.busy} together completed ${p.completedTotal.toLocaleString('en')} orders, and ` +
      `their sandboxes took ${p.postsTotalOver4.toLocaleString('en')} orders' POSTs: what differs is the orders in flight at the windows' ` +
      "two ends. Per account and window the two differ by up to 8 orders either way: an account's jobs at once (8, the least the sizing " +
      "gives) each wait for the budget's next slot in " +
      "turn, so its orders complete 8 or so together every 8 s, and a window's end cuts such a group. The client spends " +
      `${budgetDefaults.budgetHeadroom * 100}% of a budget, evenly (its headroom): ${round1(f.bound * budgetDefaults.budgetHeadroom)} ` +
      'orders a minute here.',
    '',
    `A busy account held no place (closed, or waiting for one) in ${f.busyClosedMeanPercent}% of the half-second samples over the live ` +
      `orders beside the backlogs on average, ${f.busyClosedMaxPercent}% at most. Every busy account at least 95% of its budget / 4: ` +
      `${met(busyMet)}.`,
  ];
}

/** The paragraphs and tables of the fair turns, measured. */
export async function fairnessBody(o: BenchOptions, say: (line: string) => void): Promise<string[]> {
  const z = turnsSize(o);
  const f = await runTurnsPart({
    accounts: z.accounts,
    busy: z.busy,
    backlog: z.backlog,
    busyBudget: z.busyBudget,
    liveBudget: z.liveBudget,
    rate: z.rate,
    seconds: z.seconds,
    settle: z.settle,
    processes: z.processes,
    places: z.places,
    idleSeconds: z.idleSeconds,
    turnSeconds: z.turnSeconds,
    latencyMs: z.latencyMs,
    cluster: false,
    log: say,
  });
  say(`  ${JSON.stringify(f)}`);
  const weights: WeightFigures[] = [];
  for (const shards of [8, 1]) {
    const w = await runWeightPart({
      backlog: z.weightBacklog,
      budget: z.weightBudget,
      seconds: z.weightSeconds,
      turnSeconds: z.weightTurnSeconds,
      shards,
      cluster: false,
      log: say,
    });
    say(`  ${JSON.stringify(w)}`);
    weights.push(w);
  }
  return fairnessLines(f, weights);
}

/** The paragraphs and tables of the fair turns, from their figures. */
export function fairnessLines(f: TurnsFigures, weights: WeightFigures[]): string[] {
  const places = f.processes * f.places;
  const latencyMet = f.p99DeltaMs <= 1_000 && f.alone.missing + f.beside.missing === 0;
  const busyMet = f.busyPace.atLeast95 === f.busy;
  // The issue asks for twice the turns: charged (kept ones too), and the time they held the place.
  const weightMet = (w: WeightFigures) => Math.abs(w.chargedRatio - 2) <= WEIGHT_TOLERANCE && Math.abs(w.heldRatio - 2) <= WEIGHT_TOLERANCE;
  const perHeld = (a: WeightFigures['accounts'][number]) => Math.round(a.completed / Math.max(0.1, a.heldSeconds));
  const live = f.accounts - f.busy;
  const full = f.accounts === FAIRNESS_DEFAULTS.accounts && f.busy === FAIRNESS_DEFAULTS.busy && f.backlog === FAIRNESS_DEFAULTS.backlog;
  return [
    `**Fair turns (issue 56).** ${f.accounts.toLocaleString('en')} accounts in one ACCOUNTS_FILE on one redis-server of their own` +
      `${full ? " (the issue's world)" : ` (a smaller world than the issue's 1,000 accounts and 10 backlogs of 20,000: --quick)`}, ` +
      `served by ${f.processes} \`inventory-sync worker\` processes (dist/) with WORKER_ACCOUNTS_OPEN=${f.places} each: ${places} places. ` +
      `${f.busy} accounts are busy: each a backlog of ${f.backlog.toLocaleString('en')} orders queued by \`inventory-sync import orders FILE --account NAME\` ` +
      `(${f.importSeconds} s for them all) and a budget of ${f.busyBudget} POST a minute (bound ${f.bound} orders a minute). ` +
      `The other ${live.toLocaleString('en')} are live, at ${f.liveBudget} POST a minute: orders pushed to the first process's receiver ` +
      `(\`POST /ingest/{account}/orders\`, signed) at ${f.rate} a second in all, each to the next live account of a shuffled round, so an account gets one ` +
      `every ${Math.round(live / f.rate)} s or so; each timed from the receiver's acknowledgement to its job's completion (finishedOn). Every account takes ` +
      `pushes only (no feed is polled); sandbox latency ${f.latencyMs} ms. ACCOUNT_IDLE_SECONDS=${f.idleSeconds} (an account closes a second after its ` +
      `work, so a live account holds a place about as long as its order takes) and ACCOUNT_TURN_SECONDS=${f.turnSeconds}.`,
    '',
    `Places: ${f.busy} busy accounts and the live ones with an order in flight are more accounts with work than the ${places} places ` +
      'whenever more than ' +
      `${places - f.busy} live orders are in flight: a process is then full, and a busy account hands its place back after ${f.turnSeconds} s ` +
      'while others wait. The columns on the right say how often that was: the accounts open, and those in the ready set that no process held ' +
      `(waiting for a place), sampled every half second over the arrivals; beside the backlogs ${f.besideOccupancy.waitingMax} waited at most ` +
      `(${f.besideOccupancy.waitingMean} on average)${f.besideOccupancy.waitingMax === 0 ? ': the places were never all taken, so this run did not test the hand-back' : ''}.`,
    '',
    `In one run: every account's first order (its catalog read once, ${f.warmSeconds} s for them all); ${f.seconds} s of live orders alone; the backlogs ` +
      `imported and ${f.settle} s to settle, and on to the next budget window's start; ${f.seconds} s of live orders beside them, over which the ` +
      'busy accounts are counted. ' +
      `Load average ${f.loadStart.join(', ')} at the start, ${f.loadEnd.join(', ')} at the end.`,
    '',
    `Command: \`npx tsx bench/accounts-fairness.ts --part turns --accounts ${f.accounts} --busy ${f.busy} --backlog ${f.backlog} ` +
      `--busy-budget ${f.busyBudget} --live-budget ${f.liveBudget} --rate ${f.rate} --seconds ${f.seconds} --settle ${f.settle} ` +
      `--processes ${f.processes} --places ${f.places} --idle ${f.idleSeconds} --turn ${f.turnSeconds}\``,
    '',
    markdownTable(
      ['live orders', 'orders', 'p50 ms', 'p99 ms', 'max ms', 'not completed', 'open (mean)', 'waiting (mean)', 'waiting (max)'],
      [latencyRow('no busy account', f, true), latencyRow(`beside the ${f.busy} backlogs`, f, false)],
    ),
    '',
    `Beside / alone: p50 **${f.p50Ratio}x**, p99 **${f.p99Ratio}x** (p99 ${f.p99DeltaMs >= 0 ? '+' : ''}${f.p99DeltaMs} ms). ` +
      `Live p99 within 1 s of its figure with no busy account, every live order completed: ${met(latencyMet)}.`,
    '',
    ...busyLines(f, busyMet),
    '',
    `**Weight.** Two accounts, \`heavy\` (ACCOUNT_WEIGHT=2 in its ACCOUNTS_FILE entry) and \`light\` (1), each with a backlog of ` +
      `${weights[0]!.backlog.toLocaleString('en')} orders imported and a budget of ${weights[0]!.budget.toLocaleString('en')} POST a minute, far above ` +
      `what one place does: one process, WORKER_ACCOUNTS_OPEN=1, ACCOUNT_TURN_SECONDS=${weights[0]!.turnSeconds}, so the place limits them. ` +
      `Over whole rounds of at least ${weights[0]!.seconds} s ` +
      '(from a moment `heavy` takes the place from `light` to the first such moment after them; 10 s after the imports): the orders each ' +
      'completed, the turns each began (the place changed hands), the turns charged to it (every turn ended, kept or handed back: its pass ' +
      'in the ready set moved) and the seconds each held the place (its lease, sampled every 100 ms). Run twice: with READY_SHARDS=8, the ' +
      'default, where the two names fall in shards of their own, and with READY_SHARDS=1.',
    '',
    `Command: \`npx tsx bench/accounts-fairness.ts --part weight --weight-backlog ${weights[0]!.backlog} --weight-seconds ${weights[0]!.seconds} ` +
      `--weight-turn ${weights[0]!.turnSeconds} --weight-shards 8\`, and the same with one shard (READY_SHARDS=1)`,
    '',
    markdownTable(
      [
        'READY_SHARDS',
        'account',
        'ACCOUNT_WEIGHT',
        'shard',
        'orders completed',
        'turns begun',
        'turns charged',
        'held the place s',
        'orders per s held',
        'heavy / light orders',
      ],
      weightRows(weights),
    ),
    '',
    ...weights.map(
      (w) =>
        `READY_SHARDS=${w.shards}: over ${w.roundSeconds} s, heavy / light ${w.chargedRatio}x the turns charged (${w.turnsRatio}x begun), ` +
        `${w.heldRatio}x the time, ${w.completedRatio}x the orders (${w.accounts.map(perHeld).join(' and ')} a second held); twice the ` +
        `turns and the time (within ${WEIGHT_TOLERANCE}): ${met(weightMet(w))}. Load average ${w.loadStart.join(', ')} at the start, ` +
        `${w.loadEnd.join(', ')} at the end.`,
    ),
    '',
    'The issue asks for twice the turns, and the ready set gives them: each turn charged its time held over the weight. The orders ' +
      "follow the time: their ratio is the time's times the ratio of the two accounts' orders a second held (the column before last), " +
      'which the scheduling does not set.',
    '',
    'A turn handed back that the ready set would give straight back (its charged pass still the lowest waiting) stays open, charged and ' +
      'leased again (Lua readyKeep): a turn charged, not one begun, its workers never closed. A process claims from the shard whose lowest ' +
      'pass is lowest, so passes compare across shards and the weights hold between accounts of different shards.',
    '',
    "The weights hold over time, not within a turn: an account takes turns until its charged pass passes the other's, so at any moment one " +
      `of the two is up to a turn ahead (stride scheduling's lag). Two turns of heavy's cost one of light's, so heavy's rounds are 1, 2 or 3 ` +
      'turns as the passes fall a few ms either side of each other, 2 on average. Over 180 s (six rounds) that lag alone moves the ratio by ' +
      'up to about 0.3 either way, whatever the shards (one run with one shard gave 1.72x, the next 2.04x); over whole rounds of twice ' +
      'that, by half as much.',
  ];
}
