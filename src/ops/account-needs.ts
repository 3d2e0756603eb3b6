import type { AccountGlance } from './accounts-glance.js';

/**
 * What a person has to look at in an account, from its glance, most pressing first: the service down for every stream
 * (nothing of the account runs), streams paused for refusals (they wait for `resume`), named calls held, jobs failed
 * now, pulls failing, feeds falling behind (past ALERT_LAG_SECONDS). Work waiting alone needs nobody.
 */
export const NEED_KINDS = ['outage', 'paused', 'calls', 'failed', 'pull', 'behind'] as const;
export type NeedKind = (typeof NEED_KINDS)[number];

/** One thing to look at: its kind, and the streams it is about (none for the account's outage and held calls). */
export interface Need {
  kind: NeedKind;
  streams: string[];
}

/** An account's needs, most pressing first (none: it is fine). */
export function needsOf(g: AccountGlance): Need[] {
  const by = (pick: (s: AccountGlance['streams'][number]) => boolean) => g.streams.filter(pick).map((s) => s.stream);
  const all: Array<Need | null> = [
    g.outage ? { kind: 'outage', streams: [] } : null,
    by((s) => s.paused !== null).length ? { kind: 'paused', streams: by((s) => s.paused !== null) } : null,
    g.heldCalls.length ? { kind: 'calls', streams: [] } : null,
    by((s) => s.failed > 0).length ? { kind: 'failed', streams: by((s) => s.failed > 0) } : null,
    by((s) => s.pullError !== null).length ? { kind: 'pull', streams: by((s) => s.pullError !== null) } : null,
    by((s) => s.behindSeconds !== null).length ? { kind: 'behind', streams: by((s) => s.behindSeconds !== null) } : null,
  ];
  return all.filter((n): n is Need => n !== null);
}

/** An account with its needs, as `status`'s summary lists it. */
export interface NeedingAccount {
  glance: AccountGlance;
  needs: Need[];
}

const failedOf = (g: AccountGlance) => g.streams.reduce((n, s) => n + s.failed, 0);
const waitingOf = (g: AccountGlance) => g.streams.reduce((n, s) => n + s.waiting, 0);

/**
 * The accounts that need a person, most pressing first: by their most pressing need (NEED_KINDS' order), then by how
 * many needs they have, then by jobs failed, then by jobs waiting, then by name.
 */
export function needingAccounts(glances: readonly AccountGlance[]): NeedingAccount[] {
  const rank = (a: NeedingAccount) => NEED_KINDS.indexOf(a.needs[0]!.kind);
  return glances
    .map((glance) => ({ glance, needs: needsOf(glance) }))
    .filter((a) => a.needs.length > 0)
    .sort(
      (a, b) =>
        rank(a) - rank(b) ||
        b.needs.length - a.needs.length ||
        failedOf(b.glance) - failedOf(a.glance) ||
        waitingOf(b.glance) - waitingOf(a.glance) ||
        a.glance.account.localeCompare(b.glance.account),
    );
}

/** How many accounts there are, how many are fine, how many need a person, and how many have each need. */
export interface NeedCounts {
  accounts: number;
  fine: number;
  needPerson: number;
  /** Accounts with each need (an account with two needs counts under both). */
  by: Record<NeedKind, number>;
  /** Accounts with jobs waiting (work to do: no need in itself). */
  withWork: number;
}

export function needCounts(glances: readonly AccountGlance[], needing: readonly NeedingAccount[]): NeedCounts {
  const by = Object.fromEntries(NEED_KINDS.map((k) => [k, 0])) as Record<NeedKind, number>;
  for (const a of needing) for (const n of a.needs) by[n.kind] += 1;
  return {
    accounts: glances.length,
    fine: glances.length - needing.length,
    needPerson: needing.length,
    by,
    withWork: glances.filter((g) => waitingOf(g) > 0).length,
  };
}

export { failedOf, waitingOf };
