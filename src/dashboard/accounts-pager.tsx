/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { ACCOUNT_STATES, NEED_WORDS, type AccountState } from '../ops/account-needs.js';
import { plural } from '../ops/state-words.js';
import type { AccountsView } from './accounts-board.js';

/** The all-accounts page's address for a search and a page: `/?q=ac&page=2` (page 1 and no search: `/`). */
export function accountsHref(q: string, page: number): string {
  const p = new URLSearchParams();
  if (q) p.set('q', q);
  if (page > 1) p.set('page', String(page));
  const s = p.toString();
  return s ? `/?${s}` : '/';
}

/** Each state's words in the summary: those of `status` (src/ops/account-needs.ts). */
const STATE_WORDS: Record<AccountState, string> = { ...NEED_WORDS, working: 'working', idle: 'idle' };

/** How many accounts are in each state: those that need a person first, in the order the list takes them. */
export function AccountCounts({ v }: { v: AccountsView }) {
  const need = v.total - v.counts.working - v.counts.idle;
  return (
    <p id="accounts-counts">
      <b>{plural(v.total, 'account')}</b>: <span class={need ? 'bad' : 'ok'}>{need} need a person</span>
      {ACCOUNT_STATES.filter((s) => v.counts[s] > 0 || s === 'working' || s === 'idle').map((s) => (
        <span data-state={s}>
          {' · '}
          {v.counts[s]} {STATE_WORDS[s]}
        </span>
      ))}
    </p>
  );
}

/** The search by name: a GET form, so it works without JavaScript and its result has an address. */
export function AccountSearch({ q }: { q: string }) {
  return (
    <form id="accounts-search" class="find" method="get" action="/" role="search">
      <label for="accounts-q">Find an account</label>
      <input id="accounts-q" name="q" value={q} placeholder="a part of its name" maxlength={64} />
      <button type="submit">Search</button>
      {q ? <a href="/">every account</a> : null}
    </form>
  );
}

/** The pages shown around the current one: the first, the last, and two either side. */
function pageNumbers(page: number, pages: number): number[] {
  const set = new Set([1, pages]);
  for (let p = page - 2; p <= page + 2; p++) if (p >= 1 && p <= pages) set.add(p);
  return [...set].sort((a, b) => a - b);
}

/** Links to the other pages of the list (the search kept), the current one marked; none when one page holds it all. */
export function Pager({ v }: { v: AccountsView }) {
  if (v.pages <= 1) return null;
  const numbers = pageNumbers(v.page, v.pages);
  return (
    <nav class="pager" aria-label="Pages">
      {v.page > 1 ? (
        <a rel="prev" href={accountsHref(v.q, v.page - 1)}>
          ← previous
        </a>
      ) : null}
      {numbers.map((p, i) => (
        <>
          {i > 0 && p - numbers[i - 1]! > 1 ? <span class="muted">…</span> : null}
          <a href={accountsHref(v.q, p)} aria-current={p === v.page ? 'page' : undefined}>
            {p}
          </a>
        </>
      ))}
      {v.page < v.pages ? (
        <a rel="next" href={accountsHref(v.q, v.page + 1)}>
          next →
        </a>
      ) : null}
    </nav>
  );
}
