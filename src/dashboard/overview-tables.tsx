/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { StatusReport } from '../ops/status-report.js';
import { useAt, When } from './layout.js';

/** Failed jobs grouped by stream and reason, with examples and a "Retry this group" button each. */
export function FailedGroups({ s }: { s: StatusReport }) {
  const at = useAt();
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
            <td>
              <form class="inline" method="post" action={at('/retry-group')}>
                <input type="hidden" name="stream" value={g.stream} />
                <input type="hidden" name="code" value={g.code} />
                <input type="hidden" name="reason" value={g.reason} />
                <input type="hidden" name="batch" value={String(g.batch)} />
                <button type="submit">Retry this group ({g.count})</button>
              </form>
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

/** Request budget per class: limit, use, waits, 429 holds. */
export function Budget({ s }: { s: StatusReport }) {
  return (
    <table id="budget">
      <tr>
        {['class', 'limit', 'requests', 'waited', '429s', 'scheduled ahead', 'state'].map((h) => (
          <th>{h}</th>
        ))}
      </tr>
      {s.budget.map((b) => (
        <tr>
          <td>{b.cls}</td>
          <td>{b.limit ?? '-'}</td>
          <td class="n">{b.requests}</td>
          <td class="n">{(b.waitedMs / 1000).toFixed(1)} s</td>
          <td class="n">{b.holds}</td>
          <td class="n">{b.reservedAhead}</td>
          <td>
            {b.heldUntil ? (
              <span class="bad">
                held until <When iso={b.heldUntil} /> (429)
              </span>
            ) : b.reservedAhead > 0 ? (
              'at its limit'
            ) : (
              'open'
            )}
          </td>
        </tr>
      ))}
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
