import type { AccountState, RemovedAccount } from '../ops/accounts-report.js';
import { shortDateTime } from '../time/date-format.js';
import { clip, renderTable } from './table.js';

/** What `accounts list` answers (--json as it is). */
export interface AccountsList {
  /** ACCOUNTS_FILE, or null: the environment's one account, `default`. */
  file: string | null;
  accounts: AccountState[];
  removed: RemovedAccount[];
}

function heldText(h: AccountState['streams'][number]['held']): string {
  if (!h) return '-';
  const what = h.cause === 'outage' ? 'service down' : 'paused (refusals)';
  return `${what} since ${shortDateTime(h.since, '?')} UTC: ${clip(h.reason ?? 'no reason recorded', 80)}`;
}

/** `accounts list` for a person: a row per account and stream, then the accounts the file no longer names. */
export function renderAccounts(list: AccountsList): string {
  const out = [
    list.file
      ? `${list.accounts.length} account${list.accounts.length === 1 ? '' : 's'} of ACCOUNTS_FILE (${list.file}):`
      : 'One account, `default`, from the environment (no ACCOUNTS_FILE):',
    '',
  ];
  const rows = list.accounts.flatMap((a) =>
    a.streams.map((s, i) => [
      i === 0 ? a.account : '',
      i === 0 ? a.prefix : '',
      i === 0 ? (a.service ? `${a.service.account} at ${a.service.baseUrl}` : 'not configured') : '',
      s.stream,
      s.waiting,
      s.failed,
      heldText(s.held),
    ]),
  );
  out.push(renderTable(['ACCOUNT', 'PREFIX', 'SERVICE', 'STREAM', 'TO RUN', 'FAILED', 'HELD'], rows), '');
  const held = list.accounts.filter((a) => a.streams.some((s) => s.held?.cause === 'refusals'));
  for (const a of held)
    for (const s of a.streams.filter((x) => x.held?.cause === 'refusals'))
      out.push(
        `${a.account}: ${s.stream} is paused; fix the cause, then: inventory-sync --account ${a.account} resume --stream ${s.stream}`,
      );
  if (held.length) out.push('');
  if (list.removed.length) {
    out.push(
      `In Redis but ${list.file ? 'no longer in the file' : 'in no ACCOUNTS_FILE'} ` +
        '(removed: data kept; `accounts purge NAME` deletes it):',
      renderTable(
        ['ACCOUNT', 'PREFIX', 'KEYS'],
        list.removed.map((r) => [r.account, r.prefix, r.keys]),
      ),
      '',
    );
  }
  return `${out.join('\n')}\n`.replace(/\n\n+$/, '\n');
}
