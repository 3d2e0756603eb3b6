import type { ChaosOptions } from './chaos-options.js';

/** Something done to the running system once the orders are `at` (0..1) done, plus `delayMs`. */
export type ChaosEvent =
  | { kind: 'kill'; at: number; delayMs: number; slot: number; downMs: number }
  | { kind: 'freeze'; at: number; delayMs: number; slot: number; ms: number }
  | { kind: 'redis-restart'; at: number; delayMs: number; downMs: number }
  | { kind: 'tight-budget'; at: number; delayMs: number; on: boolean }
  | { kind: 'import'; at: number; delayMs: number }
  | { kind: 'revoke-key'; at: number; delayMs: number }
  | { kind: 'outage'; at: number; delayMs: number }
  | { kind: 'call-down'; at: number; delayMs: number; index: number }
  | { kind: 'redis-full'; at: number; delayMs: number }
  | { kind: 'rotate-secret'; at: number; delayMs: number };

/**
 * Kills at random points between 5% and 85% of the orders, Redis restarts between 25% and 70%, and a
 * tight-budget phase from 30% to 55%; each with a random extra delay so it lands at no particular step.
 * The import (if any) runs right after the first kill, or at 80% of what the feed alone can bring the progress to if
 * that comes first (the imported orders count in the progress: a later point would never be reached without them).
 */
export function planEvents(o: ChaosOptions, rand: () => number): ChaosEvent[] {
  const between = (lo: number, hi: number) => lo + rand() * (hi - lo);
  const events: ChaosEvent[] = [];
  for (let i = 0; i < o.kills; i++) {
    events.push({
      kind: 'kill',
      at: between(0.05, 0.85),
      delayMs: Math.floor(rand() * 700),
      slot: Math.floor(rand() * o.workers),
      downMs: Math.floor(between(300, 2000)),
    });
  }
  for (let i = 0; i < o.redisRestarts; i++) {
    events.push({
      kind: 'redis-restart',
      at: between(0.25, 0.7),
      delayMs: Math.floor(rand() * 700),
      downMs: Math.floor(between(1000, 3000)),
    });
  }
  if (o.tightShare < 1) {
    events.push({ kind: 'tight-budget', at: 0.3, delayMs: 0, on: true }, { kind: 'tight-budget', at: 0.55, delayMs: 0, on: false });
  }
  if (o.importShare > 0) {
    const firstKill = Math.min(...events.filter((e) => e.kind === 'kill').map((e) => e.at));
    // Pushed after the kills: at the same point the sort (stable) keeps it after the kill.
    events.push({ kind: 'import', at: Math.min(firstKill, (1 - o.importShare) * 0.8), delayMs: 0 });
  }
  // Halfway, the API key is revoked until the orders stream pauses, then restored and resumed (chaos-revoke.ts).
  // Placed without a draw, so the rest of a seed's plan stays as it was.
  // Freezes early and apart (a tenth of the orders between two), before the outage, the key's revocation and Redis full:
  // two workers frozen at once, or one thawed into another incident, would be that incident's trouble, not the fence's.
  for (let i = 0; i < o.freezes; i++) {
    const at = 0.08 + (0.25 * i) / Math.max(1, o.freezes);
    events.push({ kind: 'freeze', at: between(at, at + 0.04), delayMs: Math.floor(rand() * 700), slot: i + 1, ms: o.freezeSeconds * 1000 });
  }
  if (o.revokeKey) events.push({ kind: 'revoke-key', at: 0.5, delayMs: 0 });
  // The incidents a worker rides out alone (chaos-unattended.ts), placed without a draw too.
  if (o.outageSeconds > 0) events.push({ kind: 'outage', at: 0.35, delayMs: 0 });
  // One call of the service down at a time, spread over the run (issue 45).
  for (let i = 0; i < o.callDowns; i++)
    events.push({ kind: 'call-down', at: 0.15 + (0.7 * i) / Math.max(1, o.callDowns), delayMs: 0, index: i });
  if (o.rotateSecret) events.push({ kind: 'rotate-secret', at: 0.6, delayMs: 0 });
  if (o.redisFullSeconds > 0) events.push({ kind: 'redis-full', at: 0.7, delayMs: 0 });
  return events.sort((a, b) => a.at - b.at);
}
