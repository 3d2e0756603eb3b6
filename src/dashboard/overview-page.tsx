/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { StatusReport } from '../ops/status-report.js';
import type { ReconcileReport } from '../ops/reconcile-types.js';
import { intakeQueueName } from '../queue/intake-queue.js';
import { SearchBox } from './find-page.js';
import { FlowSection } from './flow-section.js';
import { Flash, When } from './layout.js';
import { Budget, FailedGroups, Schedule } from './overview-tables.js';
import { ReconcileSummary } from './reconcile-page.js';

type StreamStatus = StatusReport['streams'][number];

function Ago({ seconds }: { seconds: number | null }) {
  if (seconds === null) return <span class="muted">never caught up</span>;
  if (seconds < 90) return <>{seconds} s</>;
  if (seconds < 5400) return <>{Math.round(seconds / 60)} min</>;
  return <>{(seconds / 3600).toFixed(1)} h</>;
}

/** A stream's import batches (records not yet jobs) by state, e.g. "3 waiting, 1 failed". */
function Batches({ st }: { st: StreamStatus }) {
  const parts = Object.entries(st.intake).filter(([, n]) => n > 0);
  if (!parts.length) return <span class="muted">none</span>;
  return (
    <a href={`/queues/queue/${intakeQueueName(st.stream)}`}>
      {parts.map(([state, n], i) => (
        <>
          {i ? ', ' : ''}
          {state === 'failed' ? <span class="bad">{n} failed</span> : `${n} ${state}`}
        </>
      ))}
    </a>
  );
}

/** A banner per stream its breaker paused: since when, why, how many jobs wait, and the button that resumes it. */
function PausedBanner({ st }: { st: StreamStatus }) {
  return (
    <div class="paused bad" role="alert" data-paused={st.stream}>
      <p>
        <strong>{st.stream} is paused</strong> since <When iso={st.breaker.since} /> UTC: the account refused every job (
        {st.breaker.refusals} in a row). Last: <code>{st.breaker.reason ?? 'no reason recorded'}</code>
      </p>
      <p>
        No job of {st.stream} runs and none is pulled; {st.breaker.waiting} job(s) wait, none lost. Fix the cause (credentials, the
        account's rights, the service), then resume.
      </p>
      <form class="inline" method="post" action="/resume">
        <input type="hidden" name="stream" value={st.stream} />
        <button type="submit">Resume {st.stream}</button>
      </form>
    </div>
  );
}

/** While the service is down: since when, why, the probes, how many jobs wait; it ends by itself (no button). */
function OutageBanner({ o }: { o: StatusReport['outage'] }) {
  if (!o.open) return null;
  return (
    <div class="paused bad" role="alert" data-outage="open">
      <p>
        <strong>The service is down</strong> since <When iso={o.since} /> UTC: <code>{o.reason ?? 'no reason recorded'}</code>
      </p>
      <p>
        Every stream holds: no job runs, none is pulled, none spends an attempt; {o.waiting} job(s) wait, none lost. {o.probes} probe(s) so
        far{o.lastProbe ? ` (last: ${o.lastProbe})` : ''}, the next at <When iso={o.nextProbeAt} /> UTC. Work goes on by itself when the
        service answers.
      </p>
    </div>
  );
}

function StreamRow({ st }: { st: StreamStatus }) {
  const { counts, feed } = st;
  return (
    <tr>
      <td>
        <a href={`/queues/queue/${st.stream}`}>{st.stream}</a>
      </td>
      <td class="n">{counts.waiting + counts.prioritized}</td>
      <td class="n">{counts.active}</td>
      <td class="n">{counts.delayed}</td>
      <td class={counts.failed ? 'n bad' : 'n'}>{counts.failed}</td>
      <td class="n">{counts.completed}</td>
      <td class="batches">
        <Batches st={st} />
      </td>
      <td>
        <code>{feed.cursor ?? '-'}</code>
      </td>
      <td>
        <When iso={feed.lastPollAt} />
      </td>
      <td>
        <Ago seconds={feed.behindSeconds} />
      </td>
      <td>
        {feed.lastError ? (
          <span class="bad">{feed.lastError.message}</span>
        ) : (
          `${feed.recordsQueued} queued, ${feed.duplicates} re-delivered, ${feed.invalid} invalid`
        )}
      </td>
    </tr>
  );
}

function Streams({ s }: { s: StatusReport }) {
  const batchesTitle = 'imported records not yet jobs: a worker turns each batch into one job per record';
  return (
    <table id="streams">
      <tr>
        {['stream', 'waiting', 'active', 'delayed', 'failed', 'completed'].map((h) => (
          <th>{h}</th>
        ))}
        <th title={batchesTitle}>import batches</th>
        {['feed cursor', 'last poll', 'behind', 'feed'].map((h) => (
          <th>{h}</th>
        ))}
      </tr>
      {s.streams.map((st) => (
        <StreamRow st={st} />
      ))}
    </table>
  );
}

/** The overview: per stream counts (import batches too) and feed position, budget use, schedules, failed jobs grouped by reason. */
export function Overview({ s, flash, reconcile }: { s: StatusReport; flash?: string; reconcile?: ReconcileReport }) {
  return (
    <>
      <Flash text={flash} />
      <OutageBanner o={s.outage} />
      {s.streams
        .filter((st) => st.breaker.paused)
        .map((st) => (
          <PausedBanner st={st} />
        ))}
      <SearchBox />
      <p class="muted">
        As of <When iso={s.at} /> UTC (the charts below update by themselves). <a href="/">Refresh</a>
      </p>
      <FlowSection streams={s.streams.map((st) => st.stream)} />
      <ReconcileSummary r={reconcile} />
      <h2>Streams</h2>
      <Streams s={s} />
      <h2>Failed jobs by reason</h2>
      <FailedGroups s={s} />
      <h2>Request budget</h2>
      <Budget s={s} />
      <h2>Scheduled runs</h2>
      <Schedule s={s} />
    </>
  );
}
