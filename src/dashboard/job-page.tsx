/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { attemptEndWord } from '../queue/lease/lease-words.js';
import type { JobStory } from '../ops/job-inspect.js';
import { intakeQueueName } from '../queue/intake-queue.js';
import { Flash, StateBadge, useAt } from './layout.js';
import { attemptsText } from '../ops/state-words.js';

/** What an import batch holds, in place of a record. */
function BatchBody({ b }: { b: NonNullable<JobStory['batch']> }) {
  const more = b.records !== null && b.records > b.firstRecordIds.length;
  return (
    <>
      <h2>Import batch</h2>
      <p class="muted">Its records are not jobs yet: a worker turns the batch into one job per record.</p>
      <table id="batch">
        <tr>
          <th>records</th>
          <td>{b.records ?? 'unreadable'}</td>
        </tr>
        <tr>
          <th>lines</th>
          <td>
            {b.firstLine ?? '?'}-{b.lastLine ?? '?'}
          </td>
        </tr>
        <tr>
          <th>first jobs</th>
          <td>
            <ul>
              {b.firstRecordIds.map((id) => (
                <li>
                  <code>{id}</code>
                </li>
              ))}
              {more ? <li class="muted">…</li> : null}
            </ul>
          </td>
        </tr>
      </table>
    </>
  );
}

type Attempt = JobStory['attempts'][number];

function AttemptEnd({ a }: { a: Attempt }) {
  if (a.error)
    return (
      <span class="bad">
        failed [{a.error.code}] {a.error.message}
      </span>
    );
  if (!a.result) return <>{attemptEndWord(a)}</>;
  return (
    <>
      <span class="ok">{a.result.outcome}</span>: {a.result.summary}
    </>
  );
}

function AttemptPart({ a }: { a: Attempt }) {
  const heads = ['method', 'path', 'status', 'ms', 'budget wait ms', 'error'];
  return (
    <>
      <h3>
        Attempt {a.attempt} at {a.startedAt} ({a.ms ?? '?'} ms): <AttemptEnd a={a} />
      </h3>
      {a.calls.length ? (
        <table class="calls">
          <tr>
            {heads.map((h) => (
              <th>{h}</th>
            ))}
          </tr>
          {a.calls.map((c) => (
            <tr>
              <td>{c.method}</td>
              <td>
                <code>{c.path}</code>
              </td>
              <td>{c.status ?? 'no answer'}</td>
              <td class="n">{c.ms}</td>
              <td class="n">{c.waitedMs ?? 0}</td>
              <td>{c.error ?? ''}</td>
            </tr>
          ))}
        </table>
      ) : (
        <p class="muted">no API calls</p>
      )}
      {a.notes.length ? (
        <ul>
          {a.notes.map((n) => (
            <li>
              {n.at}: {n.message}
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}

function ErrorPart({ s }: { s: JobStory }) {
  if (!s.error) return null;
  return (
    <>
      <h2>Error</h2>
      <p class="bad" id="reason">
        [{s.error.code}] {s.error.message}
      </p>
      {s.error.hint ? (
        <p id="hint">
          <strong>What to do:</strong> {s.error.hint}
        </p>
      ) : null}
    </>
  );
}

function ResultPart({ s }: { s: JobStory }) {
  // The outcome first: a skipped record (before go-live, superseded) completed without being written.
  const rv = s.result as { outcome?: string; summary?: string } | null;
  if (s.state !== 'completed') return null;
  return (
    <p class="ok" id="result">
      {rv?.outcome ? (
        <>
          <strong id="outcome">{rv.outcome}</strong>:{' '}
        </>
      ) : null}
      {rv?.summary ?? 'completed'}
    </p>
  );
}

/** The job's facts: its stream, key (linked to the record's find page), state, attempts and times. */
function JobTable({ s }: { s: JobStory }) {
  const at = useAt();
  const rows: Array<[string, unknown]> = [['stream', s.stream]];
  return (
    <table id="job">
      {rows.map(([h, v]) => (
        <tr>
          <th>{h}</th>
          <td>{String(v)}</td>
        </tr>
      ))}
      <tr>
        <th>key</th>
        <td>
          {/* The record's whole story (an order's snapshots in order, what each did) is on its find page. */}
          {s.key && !s.batch ? (
            <a id="job-key" href={at(`/find?key=${encodeURIComponent(s.key)}`)}>
              {s.key}
            </a>
          ) : (
            (s.key ?? '')
          )}
        </td>
      </tr>
      <tr>
        <th>state</th>
        <td>
          <StateBadge id="state" state={s.state} />
        </td>
      </tr>
      <tr>
        <th>attempts</th>
        <td>{attemptsText(s.state, s.attemptsMade, s.maxAttempts)}</td>
      </tr>
      <tr>
        <th>queued</th>
        <td>{s.createdAt}</td>
      </tr>
      <tr>
        <th>finished</th>
        <td>{s.finishedAt ?? ''}</td>
      </tr>
    </table>
  );
}

/** What the job carries: an import batch's records, or the record and the upstream payload it came from. */
function RecordPart({ s }: { s: JobStory }) {
  return s.batch ? (
    <BatchBody b={s.batch} />
  ) : (
    <>
      <h2>Record</h2>
      <pre>{JSON.stringify(s.record, null, 2)}</pre>
      {s.upstream ? (
        <>
          <h2>Upstream payload {s.upstream.id}</h2>
          <p class="muted">What the upstream sent, before the stream's transform.</p>
          <pre>{s.upstream.cut ? `${String(s.upstream.payload)}… (cut)` : JSON.stringify(s.upstream.payload, null, 2)}</pre>
        </>
      ) : null}
    </>
  );
}

/** One job's story as a page: state, record, each attempt with its API calls, the error and what to do. */
export function JobBody({ s, flash }: { s: JobStory; flash?: string }) {
  const at = useAt();
  const noAttempts = s.batch && s.attemptsMade ? 'an import batch keeps no trace of its attempts (counted above)' : 'none yet';
  return (
    <>
      <Flash text={flash} />
      <h1>
        Job <code>{s.id}</code>
      </h1>
      <JobTable s={s} />
      <ErrorPart s={s} />
      <ResultPart s={s} />
      {s.supersededBy ? (
        <p class="muted" id="superseded">
          Superseded: <a href={at(`/jobs/${encodeURIComponent(s.supersededBy)}`)}>{s.supersededBy}</a>, a newer version of this record,
          synced since. This failure is history; nothing to retry.
        </p>
      ) : s.state === 'failed' && s.error?.retryHelps !== false ? (
        <form method="post" action={at(`/jobs/${encodeURIComponent(s.id)}/retry`)}>
          <button type="submit" class="primary">
            Retry this job
          </button>
        </form>
      ) : null}
      <RecordPart s={s} />
      <h2>Attempts</h2>
      {s.attempts.length ? s.attempts.map((a) => <AttemptPart a={a} />) : <p class="muted">{noAttempts}</p>}
      <p>
        <a href={at(`/queues/queue/${s.batch ? intakeQueueName(s.stream) : s.stream}`)}>
          All {s.stream} {s.batch ? 'import batches' : 'jobs'}
        </a>{' '}
        · <a href={at('/')}>Overview</a>
      </p>
    </>
  );
}
