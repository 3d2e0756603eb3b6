/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { StatusReport } from '../ops/status-report.js';
import type { ReconcileReport } from '../ops/reconcile-types.js';
import { intakeQueueName } from '../queue/intake-queue.js';
import { SearchBox } from './find-page.js';
import { FlowSection } from './flow-section.js';
import { HoldBanners } from './hold-banners.js';
import { Flash, useAt, When } from './layout.js';
import { Budget, FailedGroups, Schedule } from './overview-tables.js';
import { ReconcileSummary } from './reconcile-page.js';
import { WaitGroups } from './wait-groups.js';
import type { BudgetSeries } from '../ops/flow-budget.js';
import { feedBehindText } from '../ops/state-words.js';

type StreamStatus = StatusReport['streams'][number];

/** How far behind a feed is, in the words `status` uses (src/ops/state-words.ts); red past the alert limit. */
export function Behind({ seconds, lastPollAt, limit }: { seconds: number | null; lastPollAt: string | null; limit?: number }) {
  const text = feedBehindText(seconds, lastPollAt);
  if (seconds === null) return <span class="muted">{text}</span>;
  return limit !== undefined && seconds > limit ? <span class="bad">{text}</span> : <>{text}</>;
}

/** A stream's import batches (records not yet jobs) by state, e.g. "3 waiting, 1 failed". */
function Batches({ st }: { st: StreamStatus }) {
  const at = useAt();
  const parts = Object.entries(st.intake).filter(([, n]) => n > 0);
  if (!parts.length) return <span class="muted">none</span>;
  return (
    <a href={at(`/queues/queue/${intakeQueueName(st.stream)}`)}>
      {parts.map(([state, n], i) => (
        <>
          {i ? ', ' : ''}
          {state === 'failed' ? <span class="bad">{n} failed</span> : `${n} ${state}`}
        </>
      ))}
    </a>
  );
}

function StreamRow({ st }: { st: StreamStatus }) {
  const at = useAt();
  const { counts, feed } = st;
  return (
    <tr>
      <td>
        <a href={at(`/queues/queue/${st.stream}`)}>{st.stream}</a>
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
        <Behind seconds={feed.behindSeconds} lastPollAt={feed.lastPollAt} />
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
export function Overview({
  s,
  flash,
  reconcile,
  budget,
}: {
  s: StatusReport;
  flash?: string;
  reconcile?: ReconcileReport;
  budget?: Partial<Record<string, BudgetSeries>>;
}) {
  const at = useAt();
  return (
    <>
      <Flash text={flash} />
      <HoldBanners s={s} />
      <SearchBox />
      <p class="muted">
        As of <When iso={s.at} /> UTC (the charts below update by themselves). <a href={at('/')}>Refresh</a>
      </p>
      <FlowSection streams={s.streams.map((st) => st.stream)} />
      <ReconcileSummary r={reconcile} />
      <h2>Streams</h2>
      <Streams s={s} />
      <WaitGroups s={s} />
      <h2>Failed jobs by reason</h2>
      <FailedGroups s={s} />
      <h2>Request budget</h2>
      <Budget s={s} flow={budget} />
      <h2>Scheduled runs</h2>
      <Schedule s={s} />
    </>
  );
}
