import type { SandboxCounters } from '../../src/sandbox/counters.js';
import { STREAMS } from '../../jobs/kinds.js';
import type { ChaosWorld } from './chaos-world.js';
import type { ImportRun } from './chaos-import.js';
import type { Injected } from './chaos-report.js';
import type { StormLog } from './chaos-storm.js';
import type { Scenario } from './scenario.js';
import type { WorkerSlots } from './worker-slots.js';

const pct = (p: number) => `${Math.round(p * 100)}%`;

/** The import's row: what the file held, and how each run of `import` went. */
function importDetail(plan: NonNullable<Scenario['imported']>, runs: ImportRun[]): string {
  const storm = runs.filter((r) => r.phase === 'storm');
  const batches = storm.reduce((n, r) => n + (r.counts?.batches ?? 0), 0);
  const shown = storm
    .map((r) => `exit ${r.code}@${pct(r.progress)}${r.counts ? ` (${r.counts.queued} queued, ${r.counts.duplicates} duplicates)` : ''}`)
    .join(', ');
  const again = runs.find((r) => r.phase === 'again');
  return (
    `${plan.good} good orders, ${plan.bad.length} bad records (${plan.malformed} line not JSON), ${plan.crossRoute} re-deliveries across routes (also in the feed), ` +
    `${plan.repeats} repeated in the file; ${batches} batch(es); import run(s): ${shown || 'none'}` +
    (again ? `; again once drained: exit ${again.code}${again.counts ? `, ${again.counts.queued} queued` : ''}` : '')
  );
}

/** The lives' row: how many of each, their snapshots, those swapped and those delivered again. */
function livesRow(scenario: Scenario): Injected {
  const lives = [...scenario.lives.values()];
  const snapshots = lives.reduce((n, l) => n + l.snapshots.length, 0);
  const delivered = scenario.feed.orders.filter((r) => {
    const id = (r as { orderId?: unknown } | null)?.orderId;
    return typeof id === 'string' && scenario.lives.has(id);
  }).length;
  const full = lives.filter((l) => l.kind === 'full').length;
  return {
    what: 'order lives (snapshots in the feed)',
    count: delivered,
    detail:
      `${full} open → edited → shipped in 2 parts → fulfilled → returned (5 snapshots), ${lives.length - full} open → cancelled ` +
      `(2-3); ${snapshots} snapshots, ${delivered - snapshots} of them again at the end; ` +
      `${lives.filter((l) => l.swapped).length} lives with an older snapshot after a newer one`,
  };
}

/** What the run did to the system, for the report's first table. */
export function injectedTable(
  scenario: Scenario,
  world: ChaosWorld,
  counters: SandboxCounters,
  storm: StormLog,
  slots: WorkerSlots,
  imports: ImportRun[],
): Injected[] {
  const feed = world.feed.counters();
  const rows: Injected[] = [];
  const plan = scenario.imported;
  for (const s of STREAMS) {
    const bad = scenario.bad.filter((b) => b.stream === s && b.via === 'feed').length;
    const after = plan?.stream === s ? plan.fedAfter.length : 0;
    rows.push({
      what: `feed records: ${s}`,
      count: scenario.feed[s].length + after,
      detail: `served ${feed.served[s]} times in ${feed.requests[s]} page requests; ${bad} bad records${after ? `; ${after} of the imported ones appended after the import` : ''}`,
    });
  }
  if (scenario.lives.size) rows.push(livesRow(scenario));
  if (plan) rows.push({ what: `imported records: ${plan.stream}`, count: plan.lines.length, detail: importDetail(plan, imports) });
  rows.push({ what: 're-deliveries (identical records again, later in the feed)', count: scenario.redelivered, detail: 'must be no-ops' });
  rows.push({ what: 'feed answers 503', count: feed.byStatus['503'] ?? 0, detail: '5% of page requests during the storm' });
  for (const kind of ['status-503', 'reset', 'apply-then-drop', 'hang']) {
    const detail = {
      'status-503': 'answered 503 before doing anything',
      reset: 'connection destroyed before doing anything',
      'apply-then-drop': 'POST applied, then the connection dropped without an answer',
      hang: 'no answer at all (the client times out after 2 s)',
    }[kind];
    rows.push({ what: `service fault: ${kind}`, count: counters.faults[kind] ?? 0, detail: detail ?? '' });
  }
  if (storm.revoke) {
    const r = storm.revoke;
    rows.push({
      what: 'API key revoked (every request 401)',
      count: r.refused,
      detail: `@${pct(r.progress)}; orders paused after ${r.pausedAfterMs ?? '-'} ms (streams paused: ${r.paused.join(', ') || 'none'}); key restored, then \`inventory-sync resume\` exit ${r.resumeCode}`,
    });
  }
  if (storm.outage) {
    const r = storm.outage;
    rows.push({
      what: `service down for ${r.seconds} s (every request 503)`,
      count: r.requests,
      detail: `@${pct(r.progress)}; requests while down (${r.firstMinute} in its first minute); held after ${r.heldAfterMs ?? '-'} ms; ended by itself ${r.endedAfterMs ?? '-'} ms after the return, first write after ${r.firstWriteAfterMs ?? '-'} ms; no resume`,
    });
  }
  for (const r of storm.callDowns)
    rows.push({
      what: `${r.call} down for ${r.seconds} s (503), the rest answering`,
      count: r.requests,
      detail: `@${pct(r.progress)}; requests to it while down; held after ${r.heldAfterMs ?? '-'} ms; released by itself ${r.releasedAfterMs ?? '-'} ms after its return; the whole service held meanwhile: ${r.outageOpened ? "yes (the storm's own faults)" : 'no'}`,
    });
  if (storm.redisFull) {
    const r = storm.redisFull;
    rows.push({
      what: `Redis full for ${r.seconds} s (every write OOM), then raised`,
      count: r.logLines,
      detail: `@${pct(r.progress)}; warning/error log lines meanwhile, at most ${r.mostOfOneWorker} from one worker; work on ${r.workAfterMs ?? '-'} ms after the raise`,
    });
  }
  if (storm.rotate) {
    const r = storm.rotate;
    rows.push({
      what: 'credentials rotated through their files',
      count: r.unauthorized,
      detail: `@${pct(r.progress)}; 401s from the rotation on; first request taken with the new key ${r.okAfterMs ?? '-'} ms after the files' rewrite; paused on the way: ${r.pausedOnTheWay.join(', ') || 'none'}; left paused: ${r.pausedAtEnd.join(', ') || 'none'}`,
    });
  }
  rows.push({
    what: 'service answers 429 (budget)',
    count: counters.rateLimited,
    detail: `tight-budget phase ${(storm.tightMs / 1000).toFixed(0)} s`,
  });
  rows.push({
    what: 'worker SIGKILLs',
    count: slots.kills.length,
    detail: slots.kills.map((k) => `w${k.slot + 1}@${pct(k.progress)}`).join(', '),
  });
  rows.push({
    what: 'worker freezes (SIGSTOP past the job lock, then SIGCONT)',
    count: slots.freezes.length,
    detail: slots.freezes.map((f) => `w${f.slot + 1}@${(f.atMs / 1000).toFixed(0)}s for ${(f.ms / 1000).toFixed(0)} s`).join(', '),
  });
  rows.push({
    what: 'worker processes started',
    count: slots.starts(),
    detail: `${slots.starts() - slots.kills.length - storm.revived} at start, ${slots.kills.length} after kills, ${storm.revived} after ending on their own`,
  });
  rows.push({
    what: 'Redis restarts (SHUTDOWN, start again)',
    count: storm.redisRestarts.length,
    detail: storm.redisRestarts.map((r) => `@${pct(r.progress)}, down ${(r.tookMs / 1000).toFixed(1)} s`).join(', '),
  });
  rows.push({
    what: 'service requests',
    count: counters.requests,
    detail: `GET ${counters.byClass.get}, POST ${counters.byClass.post}, collection ${counters.byClass.collection}`,
  });
  return rows;
}
