import { defaults } from '../../config/defaults.js';
import { readAccountsGlance, type AccountGlance, type GlanceKind, type GlanceTarget } from '../ops/accounts-glance.js';
import { byNeed, needCounts, type AccountState, type Need, type RankedAccount } from '../ops/account-needs.js';
import { matchAccounts, pageOf } from '../ops/accounts-status.js';
import type { WriteState } from '../queue/hold/write-probe.js';
import type { RedisConnection as Redis } from '../redis/connection.js';

/** What the all-accounts page asks for: a part of a name (none: every account) and a page (from 1). */
export interface AccountsAsk {
  q: string;
  page: number;
}

/** An account's row: its glance and what in it needs a person (none: it is fine). */
export type AccountRow = AccountGlance & { needs: Need[] };

/** One page of the accounts, sorted by what needs a person, and the counts of them all. */
export interface AccountsView {
  /** When the state shown was read (ISO). */
  at: string;
  /** Every account, by state (each once, by its most pressing need: as `status` counts them); `total` of them. */
  counts: Record<AccountState, number>;
  total: number;
  q: string;
  /** Accounts whose name holds `q` (every one without it), on `pages` pages of `size`. */
  matched: number;
  page: number;
  pages: number;
  size: number;
  accounts: AccountRow[];
  /** Whether Redis took the dashboard's write probe as the state was read: refusing, every account waits. */
  redisWrites: WriteState;
}

/** The longest search the page takes: longer than any account name (32), so never a limit a person meets. */
const MAX_Q = 64;

/** The page's query (`?q=...&page=N`), read liberally (case, spaces); a problem answers 400 with what to send. */
export function readAsk(query: Record<string, unknown>): AccountsAsk | { problem: string } {
  const q = typeof query.q === 'string' ? query.q.trim().toLowerCase() : '';
  if (q.length > MAX_Q) return { problem: `q: a part of an account's name, at most ${MAX_Q} characters (got ${q.length})` };
  const raw = query.page === undefined || query.page === '' ? '1' : query.page;
  if (typeof raw !== 'string' || !/^[1-9]\d{0,5}$/.test(raw.trim())) {
    return { problem: `page: a whole number from 1 (got "${String(raw).slice(0, 20)}")` };
  }
  return { q, page: Number(raw.trim()) };
}

/**
 * The accounts' state for the all-accounts page: read for every account at once (src/ops/accounts-glance.ts, the
 * reader `status` uses), sorted by need (src/ops/account-needs.ts), and kept `freshMs` so that many requests make one
 * read (one read at a time).
 */
export function accountsBoard(o: {
  redis: Redis;
  kinds: readonly GlanceKind[];
  targets: () => readonly GlanceTarget[];
  freshMs?: number;
  size?: number;
  /** A write probe (src/queue/hold/write-probe.ts), run with each read: Redis refusing writes holds every account. */
  probeWrites: () => Promise<WriteState>;
}): { view(ask: AccountsAsk): Promise<AccountsView> } {
  const freshMs = o.freshMs ?? defaults.accountsStateMs;
  const size = o.size ?? defaults.accountsPageSize;
  type Held = { for: readonly GlanceTarget[]; readAt: number; sorted: RankedAccount[]; counts: AccountsView['counts']; writes: WriteState };
  let held: Held | undefined;
  let reading: Promise<Held> | undefined;

  const read = async (targets: readonly GlanceTarget[]) => {
    const readAt = Date.now();
    const [all, writes] = await Promise.all([readAccountsGlance(o.redis, targets, o.kinds, { now: readAt }), o.probeWrites()]);
    const sorted = byNeed(all);
    return { for: targets, readAt, sorted, counts: needCounts(sorted).by, writes };
  };
  const state = () => {
    const targets = o.targets();
    if (held && held.for === targets && Date.now() - held.readAt < freshMs) return Promise.resolve(held);
    reading ??= read(targets)
      .then((s) => (held = s))
      .finally(() => (reading = undefined));
    return reading;
  };
  return {
    async view(ask) {
      const s = await state();
      const matching = matchAccounts(s.sorted, ask.q, (a) => a.glance.account);
      const { items, pages } = pageOf(matching, ask.page, size);
      return {
        at: new Date(s.readAt).toISOString(),
        counts: s.counts,
        total: s.sorted.length,
        q: ask.q,
        matched: matching.length,
        page: ask.page,
        pages,
        size,
        accounts: items.map((a) => ({ ...a.glance, needs: a.needs })),
        redisWrites: s.writes,
      };
    },
  };
}
