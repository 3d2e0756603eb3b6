import type { SandboxCounters } from '../../src/sandbox/counters.js';
import { STREAMS } from '../../src/queue/streams.js';
import type { ChaosWorld } from './chaos-world.js';
import type { Injected } from './chaos-report.js';
import type { StormLog } from './chaos-storm.js';
import type { Scenario } from './scenario.js';
import type { WorkerSlots } from './worker-slots.js';

const pct = (p: number) => `${Math.round(p * 100)}%`;

/** What the run did to the system, for the report's first table. */
export function injectedTable(scenario: Scenario, world: ChaosWorld, counters: SandboxCounters, storm: StormLog, slots: WorkerSlots): Injected[] {
  const feed = world.feed.counters();
  const rows: Injected[] = [];
  for (const s of STREAMS) {
    const bad = scenario.bad.filter((b) => b.stream === s).length;
    rows.push({ what: `feed records: ${s}`, count: scenario.feed[s].length, detail: `served ${feed.served[s]} times in ${feed.requests[s]} page requests; ${bad} bad records` });
  }
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
  rows.push({ what: 'service answers 429 (budget)', count: counters.rateLimited, detail: `tight-budget phase ${(storm.tightMs / 1000).toFixed(0)} s` });
  rows.push({ what: 'worker SIGKILLs', count: slots.kills.length, detail: slots.kills.map((k) => `w${k.slot + 1}@${pct(k.progress)}`).join(', ') });
  rows.push({ what: 'worker processes started', count: slots.starts(), detail: `${slots.starts() - slots.kills.length - storm.revived} at start, ${slots.kills.length} after kills, ${storm.revived} after ending on their own` });
  rows.push({
    what: 'Redis restarts (SHUTDOWN, start again)',
    count: storm.redisRestarts.length,
    detail: storm.redisRestarts.map((r) => `@${pct(r.progress)}, down ${(r.tookMs / 1000).toFixed(1)} s`).join(', '),
  });
  rows.push({ what: 'service requests', count: counters.requests, detail: `GET ${counters.byClass.get}, POST ${counters.byClass.post}, collection ${counters.byClass.collection}` });
  return rows;
}
