import type { Redis } from 'ioredis';
import type { SandboxCounters } from '../../src/sandbox/counters.js';
import type { SandboxState } from '../../src/sandbox/sandbox-entities.js';
import { FIRST_ACCOUNT, type OtherAccount } from './chaos-accounts.js';
import type { Injected } from './chaos-report.js';
import type { CutTurn } from './chaos-turns.js';
import type { ChaosWorld } from './chaos-world.js';
import { checkCountResults, countResults } from './check-counts.js';
import { createdOnce } from './check-lives.js';
import { checkLocks, checkQueues } from './check-queues.js';
import { checkReconcile } from './check-reconcile.js';
import { checkState } from './check-state.js';
import type { CheckResult } from './check-types.js';

/**
 * Every rule of the records, the stock, the queues, the locks and `reconcile` for an account past the first, against
 * its own service and under its own prefix; each rule's name starts with the account's.
 */
export async function checkOtherAccount(
  a: OtherAccount,
  final: { state: SandboxState; counters: Pick<SandboxCounters, 'creates'> },
  w: { conn: Redis; chunkSize: number; redisRefused: Array<[number, number]> },
  reconcile: { root: string; env: Record<string, string>; logDir: string; dist: boolean },
): Promise<CheckResult[]> {
  const checks = [
    ...checkState(a.scenario, a.initial, final.state, w.chunkSize),
    createdOnce(a.scenario, final.state, final.counters),
    ...(await checkQueues(w.conn, a.prefix, a.scenario, w.redisRefused)),
    checkCountResults(a.scenario, await countResults(w.conn, a.prefix)),
    await checkLocks(w.conn, a.prefix, 10_000),
  ];
  a.sandbox.admin.setFaults([]);
  checks.push(await checkReconcile(reconcile.root, reconcile.env, reconcile.logDir, reconcile.dist, ['--account', a.name]));
  return checks.map((c) => ({ ...c, name: `${a.name}: ${c.name}` }));
}

/** The report's rows for the accounts past the first: what each synced, their held orders, the turns kills cut. */
export function accountRows(
  world: ChaosWorld,
  finals: Array<{ counters: Pick<SandboxCounters, 'creates' | 'faults'> }>,
  cut: CutTurn[],
): Injected[] {
  if (!world.others.length) return [];
  const rows: Injected[] = [
    {
      what: 'accounts (ACCOUNTS_FILE: each its own sandbox, API key, feed and records; the workers run them by turns)',
      count: world.others.length + 1,
      detail: `${FIRST_ACCOUNT} (the records above, every phase's fault its own), ${world.others
        .map((a, i) => {
          const c = finals[i]!.counters;
          const faults = Object.values(c.faults).reduce((n, x) => n + x, 0);
          return `${a.name} (${a.scenario.goodOrders.size} orders, ${a.scenario.counts.size} counts, ${a.scenario.expectedBoms.size} BOMs, ${a.scenario.bad.length} bad records; ${faults} service faults)`;
        })
        .join(', ')}`,
    },
  ];
  for (const r of world.held?.releases ?? [])
    rows.push({
      what: `${r.account}: orders released as ${FIRST_ACCOUNT}'s ${r.phase} began`,
      count: r.orders,
      detail: `${r.doneInTime ?? '-'} completed in the ${r.heldUntil ? ((r.heldUntil - r.releasedAt) / 1000).toFixed(1) : '-'} s ${FIRST_ACCOUNT} was held`,
    });
  rows.push({
    what: 'turns cut by a worker kill (the account left open in a dead process until its lease ended)',
    count: cut.length,
    detail: cut
      .map((c) => `${c.account} ${c.nextAfterMs === null ? 'no turn after' : `again after ${(c.nextAfterMs / 1000).toFixed(1)} s`}`)
      .join(', '),
  });
  return rows;
}
