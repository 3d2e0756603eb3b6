/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { StatusReport } from '../ops/status-report.js';
import type { BudgetSeries } from '../ops/flow-budget.js';
import { useAt, When } from './layout.js';
import { supersededText } from '../ops/state-words.js';

/**
 * Failed jobs grouped by stream and reason, with examples and a "Retry this group" button where a retry can help (not
 * for records wrong in themselves, nor for damaged import batches: what helps is said instead).
 */
export function FailedGroups({ s }: { s: StatusReport }) {
  const at = useAt();
  const superseded = s.streams.filter((st) => st.superseded > 0);
  return (
    <>
      <FailedTable s={s} at={at} />
      {superseded.length ? (
        <p class="muted" id="superseded">
          History, not failures now: {supersededText(superseded)} (find a record to see its versions).
        </p>
      ) : null}
    </>
  );
}

function FailedTable({ s, at }: { s: StatusReport; at: (path: string) => string }) {
  return (
    <table id="failed-groups">
      <tr>
        {['stream', 'code', 'reason', 'jobs', 'examples', ''].map((h) => (
          <th>{h}</th>
        ))}
      </tr>
      {s.failedGroups.length ? (
        s.failedGroups.map((g) => (
          <tr data-group={`${g.stream}:${g.code}`}>
            <td>{g.stream}</td>
            <td>
              <code>{g.code}</code>
            </td>
            <td class="reason">
              {g.batch ? 'import batch: ' : ''}
              {g.reason}
            </td>
            <td class="n">{g.count}</td>
            <td>
              {g.examples.map((id, i) => (
                <>
                  {i ? <br /> : null}
                  <a href={at(`/jobs/${encodeURIComponent(id)}`)}>{id}</a>
                </>
              ))}
            </td>
            <td class="action">
              {g.retryHelps ? (
                <form class="inline" method="post" action={at('/retry-group')}>
                  <input type="hidden" name="stream" value={g.stream} />
                  <input type="hidden" name="code" value={g.code} />
                  <input type="hidden" name="reason" value={g.reason} />
                  <input type="hidden" name="batch" value={String(g.batch)} />
                  <button type="submit" class="primary">
                    Retry this group ({g.count})
                  </button>
                </form>
              ) : (
                <span class="muted no-retry">
                  {g.batch ? 'remove it and import the file again' : 'fix at the source: a corrected record is a new job'}
                </span>
              )}
            </td>
          </tr>
        ))
      ) : (
        <tr>
          <td colspan={6} class="ok">
            No failed jobs.
          </td>
        </tr>
      )}
    </table>
  );
}

/** The rate the program allows itself now, in the unit of the class's budget ("59/min", "294/h"). */
function effective(b: StatusReport['budget'][number]): string {
  if (b.effectivePerMinute === null) return '-';
  const hourly = b.limit?.endsWith('/h');
  const pct = b.share < 1 ? ` (${Math.round(b.share * 100)}%)` : '';
  return `${Math.round(hourly ? b.effectivePerMinute * 60 : b.effectivePerMinute)}${hourly ? '/h' : '/min'}${pct}`;
}

/**
 * Request budget per class, each in its own unit: the budget and what the program allows itself now, then the last
 * hour's requests, waits and 429s from the same samples as the charts above (so both say the same), and its state.
 */
export function Budget({ s, flow }: { s: StatusReport; flow?: Partial<Record<string, BudgetSeries>> }) {
  return (
    <table id="budget">
      <tr>
        {['class', 'budget', 'allowed now', 'requests, last hour', 'waited, last hour', '429s, last hour', 'scheduled ahead', 'state'].map(
          (h) => (
            <th>{h}</th>
          ),
        )}
      </tr>
      {s.budget.map((b) => {
        const hour = flow?.[b.cls]?.lastHour;
        const none = <span class="muted">not sampled yet</span>;
        return (
          <tr data-class={b.cls}>
            <td>{b.cls}</td>
            <td>{b.limit ?? '-'}</td>
            <td title={b.why}>{effective(b)}</td>
            <td class="n requests-hour">{hour ? hour.requests : flow?.[b.cls] ? none : '-'}</td>
            <td class="n waited-hour">{hour ? `${(hour.waitedMs / 1000).toFixed(1)} s` : '-'}</td>
            <td class={hour?.holds ? 'n holds-hour bad' : 'n holds-hour'}>{hour ? hour.holds : '-'}</td>
            <td class="n">{b.reservedAhead}</td>
            <td>
              {b.heldUntil ? (
                <span class="badge bad">
                  held until <When iso={b.heldUntil} /> (429)
                </span>
              ) : b.reservedAhead > 0 ? (
                <span class="badge wait">at its limit</span>
              ) : (
                <span class="badge ok">open</span>
              )}
            </td>
          </tr>
        );
      })}
    </table>
  );
}

type ScheduleRow = StatusReport['schedule'][number];

/** A run's last result: ok, not pulled (held: made up once its cause ends), or failed; and a run made up, or missed for good. */
function LastResult({ r }: { r: ScheduleRow }) {
  const result =
    r.lastOk === null ? null : r.lastOk ? (
      <span class="ok">ok</span>
    ) : r.missed && r.missed.cause !== 'failed' ? (
      <span class="warn">{r.lastError ?? 'not pulled'}</span>
    ) : (
      <span class="bad">failed: {r.lastError ?? ''}</span>
    );
  return (
    <>
      {result}
      {r.madeUp ? (
        <div class="muted" data-made-up={r.name}>
          {r.madeUp.text}
        </div>
      ) : null}
      {r.notMadeUp ? <div class="bad">{r.notMadeUp.text}</div> : null}
    </>
  );
}

/** The scheduled pulls: rule, last run and its result, next run. */
export function Schedule({ s }: { s: StatusReport }) {
  return (
    <table id="schedule">
      <tr>
        {['run', 'rule', 'last', 'next'].map((h) => (
          <th>{h}</th>
        ))}
      </tr>
      {s.schedule.length ? (
        s.schedule.map((r) => (
          <tr>
            <td>{r.name}</td>
            <td>{r.rule ?? ''}</td>
            <td>
              <When iso={r.lastRunAt} /> <LastResult r={r} />
            </td>
            <td>
              <When iso={r.nextRunAt} />
            </td>
          </tr>
        ))
      ) : (
        <tr>
          <td colspan={4} class="muted">
            none yet (the worker sets them up)
          </td>
        </tr>
      )}
    </table>
  );
}
