import type { AccountGlance } from './accounts-glance.js';

/**
 * What a person has to look at in an account, from its glance, most pressing first (the one order of `status` over
 * many accounts and of the dashboard's all-accounts page): streams paused for refusals (only a person's `resume`
 * releases them), jobs failed now (they wait for someone to read, fix or retry them), the service down for every stream
 * (it goes on by itself, but nothing of the account syncs meanwhile), named calls held (only the jobs whose next step
 * it is wait), pulls failing, feeds falling behind (past ALERT_LAG_SECONDS). Work waiting alone needs nobody.
 */
export const NEED_KINDS = ['paused', 'failed', 'outage', 'held-call', 'pull', 'behind'] as const;
export type NeedKind = (typeof NEED_KINDS)[number];

/** Each need's words where accounts are counted ("2 with the service down"): `status` and the dashboard alike. */
export const NEED_WORDS: Record<NeedKind, string> = {
  paused: 'with a stream paused',
  failed: 'with failed jobs',
  outage: 'with the service down',
  'held-call': 'with a call held',
  pull: 'with a pull failing',
  behind: 'with a feed behind',
};

/** An account's state: its most pressing need, else working (jobs waiting or running) or idle. */
export type AccountState = NeedKind | 'working' | 'idle';
export const ACCOUNT_STATES: readonly AccountState[] = [...NEED_KINDS, 'working', 'idle'];

/** One thing to look at: its kind, and the streams it is about (none for the account's outage and held calls). */
export interface Need {
  kind: NeedKind;
  streams: string[];
}

type Stream = AccountGlance['streams'][number];

/** An account's needs, most pressing first (none: it is fine). */
export function needsOf(g: AccountGlance): Need[] {
  const of = (pick: (s: Stream) => boolean) => {
    const streams = g.streams.filter(pick).map((s) => s.stream);
    return streams.length ? streams : null;
  };
  // The streams each need is about: null, no such need; [], the account's (not a stream's).
  const found: Record<NeedKind, string[] | null> = {
    paused: of((s) => s.paused !== null),
    failed: of((s) => s.failed > 0),
    outage: g.outage ? [] : null,
    'held-call': g.heldCalls.length ? [] : null,
    pull: of((s) => s.pullError !== null),
    behind: of((s) => s.laggingSeconds !== null),
  };
  return NEED_KINDS.flatMap((kind) => (found[kind] ? [{ kind, streams: found[kind] }] : []));
}

const failedOf = (g: AccountGlance) => g.streams.reduce((n, s) => n + s.failed, 0);
const waitingOf = (g: AccountGlance) => g.streams.reduce((n, s) => n + s.waiting, 0);
const busy = (g: AccountGlance) => g.streams.some((s) => s.waiting + s.active > 0);

/** An account's state (each account has one: how it is counted). */
export function stateOf(g: AccountGlance): AccountState {
  return needsOf(g)[0]?.kind ?? (busy(g) ? 'working' : 'idle');
}

/** An account with its needs (none: it is fine). */
export interface RankedAccount {
  glance: AccountGlance;
  needs: Need[];
}

/** Of two accounts with the same most pressing need, the more pressing: more needs, more failed, more waiting. */
const pressing = (a: RankedAccount, b: RankedAccount) =>
  b.needs.length - a.needs.length || failedOf(b.glance) - failedOf(a.glance) || waitingOf(b.glance) - waitingOf(a.glance);

/**
 * Every account in the order a person works through them: those that need a person first, by their most pressing
 * need (NEED_KINDS' order), then by how many needs they have, then by jobs failed, then by jobs waiting, then by name;
 * then the fine ones by name.
 */
export function byNeed(glances: readonly AccountGlance[]): RankedAccount[] {
  const rank = (a: RankedAccount) => (a.needs.length ? NEED_KINDS.indexOf(a.needs[0]!.kind) : NEED_KINDS.length);
  return glances
    .map((glance) => ({ glance, needs: needsOf(glance) }))
    .sort((a, b) => rank(a) - rank(b) || (a.needs.length ? pressing(a, b) : 0) || a.glance.account.localeCompare(b.glance.account));
}

/** How many accounts there are, and in each state: each account counted once, by its most pressing need. */
export interface NeedCounts {
  accounts: number;
  needPerson: number;
  fine: number;
  by: Record<AccountState, number>;
}

export function needCounts(ranked: readonly RankedAccount[]): NeedCounts {
  const by = Object.fromEntries(ACCOUNT_STATES.map((k) => [k, 0])) as Record<AccountState, number>;
  for (const a of ranked) by[a.needs[0]?.kind ?? (busy(a.glance) ? 'working' : 'idle')] += 1;
  const fine = by.working + by.idle;
  return { accounts: ranked.length, needPerson: ranked.length - fine, fine, by };
}

export { failedOf, waitingOf };
