import type { AccountConfig } from '../../config/accounts.js';
import { checkEvictionPolicy } from '../redis/eviction-policy.js';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { readAccountsGlance, type GlanceKind } from './accounts-glance.js';
import { needCounts, needingAccounts, type NeedCounts, type NeedingAccount } from './account-needs.js';

/** Which accounts a listing shows: those whose name holds `match`, then the `page`th `limit` of them (1 = first). */
export interface AccountsPick {
  match?: string | undefined;
  page: number;
  limit: number;
}

/** The accounts whose name holds `match` (any case); every account without it. */
export function matchAccounts<T extends { name: string }>(accounts: readonly T[], match: string | undefined): T[] {
  const m = match?.toLowerCase();
  return m ? accounts.filter((a) => a.name.toLowerCase().includes(m)) : [...accounts];
}

/** The `page`th `limit` of a list (1 = first), and how many pages there are (at least 1). */
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
  needing: NeedingAccount[];
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
  const chosen = matchAccounts(accounts, pick.match);
  const [glances, eviction] = await Promise.all([readAccountsGlance(redis, chosen, kinds, { now }), checkEvictionPolicy(redis)]);
  const needing = needingAccounts(glances);
  const { items, pages } = pageOf(needing, pick.page, pick.limit);
  return {
    at: new Date(now).toISOString(),
    total: accounts.length,
    match: pick.match ?? null,
    counts: needCounts(glances, needing),
    redisWarning: eviction.warning,
    needing: items,
    page: pick.page,
    pages,
    limit: pick.limit,
  };
}
