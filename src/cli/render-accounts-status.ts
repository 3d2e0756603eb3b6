import type { AccountsStatus } from '../ops/accounts-status.js';
import { NEED_KINDS, NEED_WORDS, waitingOf, type Need, type RankedAccount } from '../ops/account-needs.js';
import { durationText, plural } from '../ops/state-words.js';
import { shortDateTime } from '../time/date-format.js';
import { clip } from './table.js';

const when = (iso: string | null) => `${shortDateTime(iso, '?').slice(0, 16)} UTC`;

const pausedText = (stream: string, p: { since: string | null; reason: string | null }) =>
  `${stream} since ${when(p.since)} (${clip(p.reason ?? '?', 50)})`;

/** One need of an account, in a few words. */
function needText(a: RankedAccount, n: Need): string {
  const g = a.glance;
  const of = (s: string) => g.streams.find((x) => x.stream === s)!;
  switch (n.kind) {
    case 'outage':
      return `service down since ${when(g.outage!.since)}: ${clip(g.outage!.reason ?? 'no reason recorded', 60)}`;
    case 'paused':
      return `paused: ${n.streams.map((s) => pausedText(s, of(s).paused!)).join(', ')}`;
    case 'held-call':
      return `calls held: ${g.heldCalls.map((c) => c.label).join(', ')}`;
    case 'failed':
      return `failed: ${n.streams.map((s) => `${s} ${of(s).failed}`).join(', ')}`;
    case 'pull':
      return `pull failing: ${n.streams.map((s) => `${s} (${clip(of(s).pullError ?? '', 50)})`).join(', ')}`;
    case 'behind':
      return `behind: ${n.streams.map((s) => `${s} ${durationText(of(s).laggingSeconds ?? 0)}`).join(', ')}`;
  }
}

/** The command line that lists the page `page` as this one was asked. */
function pageCommand(s: AccountsStatus, page: number): string {
  const match = s.match === null ? '' : ` --match ${JSON.stringify(s.match)}`;
  return `inventory-sync status${match} --page ${page} --limit ${s.limit}`;
}

/**
 * "1000 accounts: 10 need a person (8 with failed jobs, 2 with the service down); 990 fine (40 working, 950 idle)":
 * each account counted once, by its most pressing need, as the dashboard's all-accounts page counts them.
 */
function countsLine(s: AccountsStatus): string {
  const c = s.counts;
  const by = NEED_KINDS.filter((k) => c.by[k] > 0).map((k) => `${c.by[k]} ${NEED_WORDS[k]}`);
  const need = `${c.needPerson} need${c.needPerson === 1 ? 's' : ''} a person${by.length ? ` (${by.join(', ')})` : ''}`;
  return `${plural(c.accounts, 'account')}: ${need}; ${c.fine} fine (${c.by.working} working, ${c.by.idle} idle)`;
}

/** `status` over many accounts for a person: the counts, then a page of the accounts that need a person, each with its command. */
export function renderAccountsStatus(s: AccountsStatus): string {
  const of = s.match === null ? '' : ` whose name holds "${s.match}" (of ${s.total})`;
  const out = [`Status of ${plural(s.counts.accounts, 'account')} of ACCOUNTS_FILE${of} at ${when(s.at)}`, '', countsLine(s)];
  if (s.redisWarning) out.push('', `Warning: ${s.redisWarning}`);
  const n = s.counts.needPerson;
  if (n === 0) out.push('', `Every account is fine. Every account in full: inventory-sync status --all`);
  else {
    const first = (s.page - 1) * s.limit + 1;
    const range = s.needing.length ? `${first}-${first + s.needing.length - 1} of ${n}` : `none on page ${s.page} of ${s.pages}`;
    out.push('', `Accounts that need a person, most pressing first (${range}):`);
    for (const a of s.needing) {
      const waiting = waitingOf(a.glance);
      const tail = waiting ? `; ${plural(waiting, 'job')} waiting` : '';
      out.push(`  ${a.glance.account}: ${a.needs.map((x) => needText(a, x)).join('; ')}${tail}`);
      out.push(`    more: inventory-sync --account ${a.glance.account} status`);
    }
    if (s.page < s.pages) out.push('', `Next page: ${pageCommand(s, s.page + 1)}`);
    out.push(`Every account in full: inventory-sync status --all (with --match TEXT, --page N, --limit N)`);
  }
  return `${out.join('\n')}\n`;
}

/** `status --json --summary` (and its data): the counts, and the page of accounts that need a person with their needs. */
export function accountsStatusJson(s: AccountsStatus): Record<string, unknown> {
  return {
    at: s.at,
    total: s.total,
    match: s.match,
    counts: s.counts,
    redis: { warning: s.redisWarning },
    page: s.page,
    pages: s.pages,
    limit: s.limit,
    needing: s.needing.map((a) => ({ ...a.glance, needs: a.needs, command: `inventory-sync --account ${a.glance.account} status` })),
  };
}
