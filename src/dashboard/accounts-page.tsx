/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { AccountGlance, StreamGlance } from '../ops/accounts-glance.js';
import { plural } from '../ops/state-words.js';
import type { AccountRow, AccountsView } from './accounts-board.js';
import { AccountCounts, accountsHref, AccountSearch, Pager } from './accounts-pager.js';
import { accountBase, When } from './layout.js';
import { Behind } from './overview-page.js';

/**
 * A stream of an account: what it synced (completed jobs kept, and in the last hour), what waits, runs and failed,
 * and how far behind its feed is; the failed in red when there are any. The words are those of the overview.
 */
function StreamCell({ st }: { st: StreamGlance | undefined }) {
  if (!st) return <span class="muted">-</span>;
  return (
    <div class="stream-cell">
      <div>
        <span class="completed">
          <b>{st.completed}</b> completed
        </span>{' '}
        <span class="muted">({st.completedLastHour} in the last hour)</span>
      </div>
      <div>
        <span class="waiting">{st.waiting}</span> waiting · <span class="active">{st.active}</span> active ·{' '}
        <span class={st.failed ? 'failed bad' : 'failed'}>{st.failed}</span> failed
      </div>
      <div class="behind">
        feed behind: <Behind seconds={st.behindSeconds} lastPollAt={st.lastPollAt} limit={st.laggingSeconds === null ? undefined : 0} />
      </div>
    </div>
  );
}

/**
 * What holds the account's streams: the service down (all of them), each stream its breaker paused, with why, and
 * each named call held (only the jobs whose next step it is wait).
 */
function Held({ a }: { a: AccountGlance }) {
  const paused = a.streams.filter((st) => st.paused);
  if (!a.outage && !paused.length && !a.heldCalls.length) return <span class="ok">none</span>;
  return (
    <>
      {a.outage ? (
        <p class="bad" data-held="outage">
          every stream: the service is down since <When iso={a.outage.since} /> (<code>{a.outage.reason ?? 'no reason recorded'}</code>)
        </p>
      ) : null}
      {paused.map((st) => (
        <p class="bad" data-held={st.stream}>
          {st.stream} paused since <When iso={st.paused!.since} />: <code>{st.paused!.reason ?? 'no reason recorded'}</code>
        </p>
      ))}
      {a.heldCalls.map((c) => (
        <p class="bad" data-held={`call:${c.call}`}>
          {c.label} held since <When iso={c.since} />: only the jobs whose next step it is wait
        </p>
      ))}
    </>
  );
}

function Row({ a, streams }: { a: AccountRow; streams: readonly string[] }) {
  const of = (s: string) => a.streams.find((st) => st.stream === s);
  return (
    <tr data-account={a.account}>
      <th>
        <a href={`${accountBase(a.account)}/`}>{a.account}</a>
        <br />
        <span class="muted">prefix {a.prefix}</span>
      </th>
      {streams.map((s) => (
        <td data-stream={s}>
          <StreamCell st={of(s)} />
        </td>
      ))}
      <td>
        <Held a={a} />
      </td>
    </tr>
  );
}

/** Which of the list this page shows: "accounts 51-100 of 200", the search named. */
function Showing({ v }: { v: AccountsView }) {
  const from = (v.page - 1) * v.size + 1;
  const of = v.q ? (
    <>
      {plural(v.matched, 'account')} whose name holds <code>{v.q}</code>
    </>
  ) : (
    <>{plural(v.matched, 'account')}</>
  );
  if (!v.matched)
    return (
      <p id="accounts-showing">
        No account's name holds <code>{v.q}</code>.
      </p>
    );
  return (
    <p id="accounts-showing">
      {from}-{from + v.accounts.length - 1} of {of}, page {v.page} of {v.pages}.
    </p>
  );
}

/** Redis refusing the dashboard's write probe: every account waits, whatever its row says. */
function RedisRefused({ w }: { w: AccountsView['redisWrites'] }) {
  if (!w.refusing) return null;
  return (
    <p class="bad" id="redis-refused" role="alert">
      Redis {w.answered ? 'refuses writes' : 'does not answer writes'} since {new Date(w.since ?? Date.now()).toISOString().slice(11, 19)}{' '}
      UTC: <code>{w.why ?? 'no reason given'}</code>. {w.hint ?? ''} Every account's jobs and pulls wait (nothing is lost) and go on by
      themselves once Redis takes writes again.
    </p>
  );
}

/**
 * ACCOUNTS_FILE's accounts, a page at a time: how many are in each state, a search by name, and a row each, those that
 * need a person first, each name linking to the account's own pages.
 */
export function AccountsOverview({ v, streams }: { v: AccountsView; streams: readonly string[] }) {
  return (
    <>
      <h1>All accounts</h1>
      <p class="muted">
        As of <span id="accounts-at">{v.at.slice(11, 19)}</span> UTC (read at most every few seconds). Those that need a person come first
        (a stream paused, failed jobs, the service down, a call held, a pull failing, a feed behind: the order of <code>status</code>), then
        the rest by name. Per stream: the jobs completed (synced, or found already as they should be), those waiting, running and failed,
        and how far behind its feed is. <a href={accountsHref(v.q, v.page)}>Refresh</a>
      </p>
      <RedisRefused w={v.redisWrites} />
      <AccountCounts v={v} />
      <AccountSearch q={v.q} />
      <Showing v={v} />
      <table id="accounts-overview">
        <tr>
          <th>account</th>
          {streams.map((s) => (
            <th>{s}</th>
          ))}
          <th>held</th>
        </tr>
        {v.accounts.map((a) => (
          <Row a={a} streams={streams} />
        ))}
      </table>
      <Pager v={v} />
    </>
  );
}

/** A page past the list's end: how many pages there are, and links to the first and the last. */
export function NoSuchPage({ v }: { v: AccountsView }) {
  return (
    <>
      <h1>No page {v.page}</h1>
      <p id="no-page">
        {v.q ? (
          <>
            {plural(v.matched, 'account')} whose name holds <code>{v.q}</code>
          </>
        ) : (
          plural(v.matched, 'account')
        )}{' '}
        {v.matched === 1 ? 'makes' : 'make'} {plural(v.pages, 'page')} of {v.size}:{' '}
        <a href={accountsHref(v.q, v.pages)}>the last page ({v.pages})</a> · <a href={accountsHref(v.q, 1)}>the first</a>
      </p>
      <AccountSearch q={v.q} />
    </>
  );
}
