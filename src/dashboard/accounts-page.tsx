/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { AccountSummary, StreamSummary } from '../ops/account-summary.js';
import { accountBase, When } from './layout.js';
import { Behind } from './overview-page.js';

/**
 * A stream of an account: what it synced (completed jobs kept, and in the last hour), what waits, runs and failed,
 * and how far behind its feed is; the failed in red when there are any. The words are those of the overview.
 */
function StreamCell({ st, lagLimit }: { st: StreamSummary | undefined; lagLimit?: number }) {
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
        feed behind: <Behind seconds={st.behindSeconds} lastPollAt={st.lastPollAt} limit={lagLimit} />
      </div>
    </div>
  );
}

/** What holds the account's streams: the service down (all of them), or each stream its breaker paused, with why. */
function Held({ a }: { a: AccountSummary }) {
  const paused = a.streams.filter((st) => st.paused);
  if (!a.outage && !paused.length) return <span class="ok">none</span>;
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
    </>
  );
}

function AccountRow({ a, streams }: { a: AccountSummary; streams: readonly string[] }) {
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

/** Every account of ACCOUNTS_FILE at a glance, a row each, its name linking to its own pages. */
export function AccountsOverview({ accounts, streams, at }: { accounts: AccountSummary[]; streams: readonly string[]; at: string }) {
  return (
    <>
      <h1>All accounts</h1>
      <p class="muted">
        As of <When iso={at} /> UTC. Per stream: the jobs completed (synced, or found already as they should be), those waiting, running and
        failed, and how far behind its feed is; each account's name leads to its own pages. <a href="/">Refresh</a>
      </p>
      <table id="accounts-overview">
        <tr>
          <th>account</th>
          {streams.map((s) => (
            <th>{s}</th>
          ))}
          <th>held</th>
        </tr>
        {accounts.map((a) => (
          <AccountRow a={a} streams={streams} />
        ))}
      </table>
    </>
  );
}
