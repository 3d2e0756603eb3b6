import type { AccountConfig } from '../../config/accounts.js';
import { checkEvictionPolicy } from '../redis/eviction-policy.js';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { glanceTargetOf, readAccountsGlance, type GlanceKind } from './accounts-glance.js';
import { byNeed, needCounts, type NeedCounts, type RankedAccount } from './account-needs.js';

/** Which accounts a listing shows: those whose name holds `match`, then the `page`th `limit` of them (1 = first). */
export interface AccountsPick {
  match?: string | undefined;
  page: number;
  limit: number;
}

/**
 * The items whose name holds `match` (any case); every one without it. `status` (`--match`) and the dashboard's
 * all-accounts page (`?q=`) narrow the accounts with it.
 */
export function matchAccounts<T>(items: readonly T[], match: string | undefined, nameOf: (t: T) => string): T[] {
  const m = match?.toLowerCase();
  return m ? items.filter((a) => nameOf(a).toLowerCase().includes(m)) : [...items];
}

/** The `page`th `limit` of a list (1 = first), and how many pages there are (at least 1): `status` and the dashboard. */
export function pageOf<T>(list: readonly T[], page: number, limit: number): { items: T[]; pages: number } {
  return { items: list.slice((page - 1) * limit, page * limit), pages: Math.max(1, Math.ceil(list.length / limit)) };
}

/** What `status` over many accounts says: every account counted by its state, then a page of those that need a person. */
export interface AccountsStatus {
  at: string;
  /** The file's accounts, and the `--match` that narrowed them (with how many it kept: `counts.accounts`). */
  total: number;
  match: string | null;
  counts: NeedCounts;
  /** Redis's eviction policy's warning (the deployment's, said once). */
  redisWarning: string | null;
  /** The page of the accounts that need a person, most pressing first. */
  needing: RankedAccount[];
  page: number;
  pages: number;
  limit: number;
}

/** Reads every account's glance (few round trips: src/ops/accounts-glance.ts) and sums it up. */
export async function readAccountsStatus(
  redis: Redis,
  accounts: readonly AccountConfig[],
  kinds: readonly GlanceKind[],
  pick: AccountsPick,
  now = Date.now(),
): Promise<AccountsStatus> {
  const chosen = matchAccounts(accounts, pick.match, (a) => a.name).map(glanceTargetOf);
  const [glances, eviction] = await Promise.all([readAccountsGlance(redis, chosen, kinds, { now }), checkEvictionPolicy(redis)]);
  const ranked = byNeed(glances);
  const { items, pages } = pageOf(
    ranked.filter((a) => a.needs.length > 0),
    pick.page,
    pick.limit,
  );
  return {
    at: new Date(now).toISOString(),
    total: accounts.length,
    match: pick.match ?? null,
    counts: needCounts(ranked),
    redisWarning: eviction.warning,
    needing: items,
    page: pick.page,
    pages,
    limit: pick.limit,
  };
}
