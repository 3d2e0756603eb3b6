import type { AccountSummary } from './account-summary.js';

/**
 * What in an account needs a person, most pressing first: a stream held for refusals waits for `resume` (only a
 * person releases it); failed jobs wait for someone to read, fix or retry them; the service down holds every stream
 * (it goes on by itself, but nothing syncs meanwhile); a held call holds only the jobs whose next step it is.
 */
export const TROUBLES = ['paused', 'failed', 'outage', 'held-call'] as const;
export type Trouble = (typeof TROUBLES)[number];

/** How the all-accounts page counts an account: by its first trouble, else working (jobs waiting or running) or idle. */
export type AccountState = Trouble | 'working' | 'idle';
export const ACCOUNT_STATES: readonly AccountState[] = [...TROUBLES, 'working', 'idle'];

/** An account's troubles, most pressing first, each with how many of it (streams paused, jobs failed, calls held). */
export function troublesOf(a: AccountSummary): Array<{ trouble: Trouble; n: number }> {
  const n: Record<Trouble, number> = {
    paused: a.streams.filter((st) => st.paused).length,
    failed: a.streams.reduce((sum, st) => sum + st.failed, 0),
    outage: a.outage ? 1 : 0,
    'held-call': a.heldCalls.length,
  };
  return TROUBLES.filter((t) => n[t] > 0).map((trouble) => ({ trouble, n: n[trouble] }));
}

/** The account's state as the page counts it. */
export function stateOf(a: AccountSummary): AccountState {
  const first = troublesOf(a)[0];
  if (first) return first.trouble;
  return a.streams.some((st) => st.waiting + st.active > 0) ? 'working' : 'idle';
}

/**
 * The accounts in the order a person works through them: those with a trouble first, by their most pressing one
 * (then the most of it, then the longest held), then the rest by name.
 */
export function byNeed(accounts: readonly AccountSummary[]): AccountSummary[] {
  const keyed = accounts.map((a) => {
    const first = troublesOf(a)[0];
    return { a, rank: first ? TROUBLES.indexOf(first.trouble) : TROUBLES.length, n: first?.n ?? 0, since: sinceOf(a, first?.trouble) };
  });
  keyed.sort((x, y) => x.rank - y.rank || y.n - x.n || x.since.localeCompare(y.since) || x.a.account.localeCompare(y.a.account));
  return keyed.map((k) => k.a);
}

/** When the trouble began (ISO; '~' sorts after every time when unknown), for the longest held first. */
function sinceOf(a: AccountSummary, t: Trouble | undefined): string {
  const times =
    t === 'paused'
      ? a.streams.map((st) => st.paused?.since)
      : t === 'outage'
        ? [a.outage?.since]
        : t === 'held-call'
          ? a.heldCalls.map((c) => c.since)
          : [];
  return times.filter((x): x is string => Boolean(x)).sort()[0] ?? '~';
}

/** How many accounts are in each state, every state named (zeros too). */
export function countByState(accounts: readonly AccountSummary[]): Record<AccountState, number> {
  const out = Object.fromEntries(ACCOUNT_STATES.map((s) => [s, 0])) as Record<AccountState, number>;
  for (const a of accounts) out[stateOf(a)] += 1;
  return out;
}
