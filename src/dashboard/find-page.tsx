/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { shortDateTime } from '../time/date-format.js';
import { StateBadge, useAt } from './layout.js';
import type { FindResult } from '../ops/find.js';
import { attemptsText, versionText } from '../ops/state-words.js';

/** The search box of the overview: any orderId, countId or productId. */
export function SearchBox({ value = '' }: { value?: string }) {
  const at = useAt();
  return (
    <form id="find" class="find" method="get" action={at('/find')} role="search">
      <label for="find-key">Find a record</label>
      <input id="find-key" name="key" value={value} placeholder="orderId, countId or productId" required maxlength={200} />
      <button type="submit">Find</button>
    </form>
  );
}

/** An entity's URL as a link to the service when its base URL is known, else as text. */
export function EntityLink({ url, serviceBaseUrl }: { url: string; serviceBaseUrl?: string }) {
  const code = <code>{url}</code>;
  return serviceBaseUrl ? (
    <a href={serviceBaseUrl + url} rel="noreferrer" target="_blank">
      {code}
    </a>
  ) : (
    code
  );
}

type FoundJob = FindResult['jobs'][number];

function JobRow({ j }: { j: FoundJob }) {
  const at = useAt();
  const calls = j.attempts.flatMap((a) => a.calls);
  const summary = (j.result as { summary?: string } | null)?.summary ?? j.state;
  return (
    <tr data-job={j.id}>
      <td>
        <a href={at(`/jobs/${encodeURIComponent(j.id)}`)}>{j.id}</a>
      </td>
      <td>{j.stream}</td>
      <td class={j.standing === 'in force' ? 'ok' : j.standing === 'only' ? undefined : 'muted'}>{versionText(j.version, j.standing)}</td>
      <td class="state">
        <StateBadge state={j.state} />
      </td>
      <td class="n">{attemptsText(j.state, j.attemptsMade, j.maxAttempts)}</td>
      <td>{shortDateTime(j.finishedAt ?? j.createdAt)}</td>
      <td>
        {j.error ? (
          <span class="bad">
            [{j.error.code}] {j.error.message}
          </span>
        ) : (
          <span class="ok">{summary}</span>
        )}
        {calls.length ? (
          <details>
            <summary>
              {calls.length} API call{calls.length === 1 ? '' : 's'}
            </summary>
            <ul>
              {calls.map((c) => (
                <li>
                  <code>
                    {c.method} {c.path}
                  </code>{' '}
                  {c.status ?? 'no answer'}
                  {c.error ? <span class="bad"> {c.error}</span> : null}
                </li>
              ))}
            </ul>
          </details>
        ) : null}
      </td>
    </tr>
  );
}

function Mapped({ r }: { r: FindResult }) {
  if (!r.mapped.length) return null;
  return (
    <>
      <h2>Mapped names</h2>
      <table id="find-mapped">
        <tr>
          <th>kind</th>
          <th>upstream</th>
          <th>service (MAPPING_FILE)</th>
        </tr>
        {r.mapped.map((m) => (
          <tr>
            <td>{m.kind}</td>
            <td>
              <code>{m.upstream}</code>
            </td>
            <td>
              → <code>{m.service}</code>
            </td>
          </tr>
        ))}
      </table>
    </>
  );
}

function Progress({ r }: { r: FindResult }) {
  return (
    <>
      {r.progressLines.map((line) => (
        <p class="progress">{line}</p>
      ))}
      {(r.sections ?? []).map((t, i) => (
        <>
          <h2>{t.title}</h2>
          <table class="find-section" id={`find-section-${i}`}>
            <tr>
              {t.head.map((h) => (
                <th>{h}</th>
              ))}
            </tr>
            {t.rows.length ? (
              t.rows.map((row) => (
                <tr>
                  {row.map((c) => (
                    <td>{c}</td>
                  ))}
                </tr>
              ))
            ) : (
              <EmptyRow cols={t.head.length} text="none" />
            )}
          </table>
        </>
      ))}
    </>
  );
}

/** A key's story: each job (version, state, attempts with their calls, result or error) and the entities it made. */
export function FindResultBody({ r, serviceBaseUrl }: { r: FindResult; serviceBaseUrl?: string }) {
  const at = useAt();
  if (!r.found) {
    return (
      <>
        <SearchBox value={r.key} />
        <p class="bad" id="find-none">
          Nothing known of <code>{r.key}</code> under prefix {r.prefix}: no job (completed ones are kept 7 days) and no progress.
        </p>
      </>
    );
  }
  const heads = ['job', 'stream', 'version', 'state', 'attempts', 'when (UTC)', 'result / error'];
  return (
    <>
      <SearchBox value={r.key} />
      <h1>
        Record <code>{r.key}</code>
      </h1>
      <h2>Jobs</h2>
      <table id="find-jobs">
        <tr>
          {heads.map((h) => (
            <th>{h}</th>
          ))}
        </tr>
        {r.jobs.length ? r.jobs.map((j) => <JobRow j={j} />) : <EmptyRow cols={7} text="none kept" />}
      </table>
      <h2>Service entities</h2>
      <table id="find-entities">
        <tr>
          <th>kind</th>
          <th>URL</th>
          <th>known from</th>
        </tr>
        {r.entities.length ? (
          r.entities.map((e) => (
            <tr>
              <td>{e.kind}</td>
              <td>
                <EntityLink url={e.url} serviceBaseUrl={serviceBaseUrl} />
              </td>
              <td>
                {e.source === 'progress' ? 'progress in Redis' : <a href={at(`/jobs/${encodeURIComponent(e.source)}`)}>{e.source}</a>}
              </td>
            </tr>
          ))
        ) : (
          <EmptyRow cols={3} text="none recorded" />
        )}
      </table>
      <Mapped r={r} />
      <Progress r={r} />
    </>
  );
}

export function EmptyRow({ cols, text }: { cols: number; text: string }) {
  return (
    <tr>
      <td colspan={cols} class="muted">
        {text}
      </td>
    </tr>
  );
}
