/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { AccountSummary, StreamSummary } from '../ops/account-summary.js';
import { accountBase, When } from './layout.js';
import { Ago } from './overview-page.js';

/** A stream's jobs as "waiting / active / failed", the failed in red when there are any. */
function Jobs({ st }: { st: StreamSummary | undefined }) {
  if (!st) return <span class="muted">-</span>;
  return (
    <>
      <span class="waiting">{st.waiting}</span> / <span class="active">{st.active}</span> /{' '}
      <span class={st.failed ? 'failed bad' : 'failed'}>{st.failed}</span>
    </>
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
        <td class="n" data-stream={s}>
          <Jobs st={of(s)} />
        </td>
      ))}
      <td>
        <Held a={a} />
      </td>
      <td>
        {streams.map((s, i) => (
          <>
            {i ? <br /> : null}
            {s}: <Ago seconds={of(s)?.behindSeconds ?? null} />
          </>
        ))}
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
        As of <When iso={at} /> UTC. Jobs per stream as waiting / active / failed; each account's name leads to its own pages.{' '}
        <a href="/">Refresh</a>
      </p>
      <table id="accounts-overview">
        <tr>
          <th>account</th>
          {streams.map((s) => (
            <th>{s}</th>
          ))}
          <th>held</th>
          <th>feed behind</th>
        </tr>
        {accounts.map((a) => (
          <AccountRow a={a} streams={streams} />
        ))}
      </table>
    </>
  );
}
