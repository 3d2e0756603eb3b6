/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { comparedText, type ReconcileReport } from '../ops/reconcile-types.js';
import { EntityLink } from './find-page.js';
import { When } from './layout.js';

/** One line for the overview: when reconcile last ran and what it found. */
export function ReconcileSummary({ r }: { r: ReconcileReport | undefined }) {
  if (!r) {
    return (
      <p id="reconcile-summary" class="muted">
        Reconcile has not run yet: <code>inventory-sync reconcile</code> compares the service with what was synced.
      </p>
    );
  }
  const n = r.drifts.length;
  return (
    <p id="reconcile-summary">
      Last reconcile <When iso={r.at} /> UTC:{' '}
      {r.ok ? <span class="ok">no drift</span> : <span class="bad">{`${n} drift${n === 1 ? '' : 's'}`}</span>}.{' '}
      <a href="/reconcile">The report</a>
    </p>
  );
}

type Drift = ReconcileReport['drifts'][number];

function DriftRow({ d, serviceBaseUrl }: { d: Drift; serviceBaseUrl?: string }) {
  return (
    <tr data-key={d.key}>
      <td>{d.stream}</td>
      <td>
        <a href={`/find?key=${encodeURIComponent(d.key)}`}>{d.key}</a>
      </td>
      <td>
        <code>{d.kind}</code>
      </td>
      <td class="field">{d.field}</td>
      <td>{d.service}</td>
      <td>{d.synced}</td>
      <td>
        {d.url ? <EntityLink url={d.url} serviceBaseUrl={serviceBaseUrl} /> : null}
        {d.detail ? <span class="muted"> {d.detail}</span> : null}
      </td>
    </tr>
  );
}

/** The last reconcile report: what was compared, every drift naming the record and the field, what it cost. */
export function ReconcileBody({ r, serviceBaseUrl }: { r: ReconcileReport | undefined; serviceBaseUrl?: string }) {
  if (!r) return <ReconcileSummary r={r} />;
  const heads = ['stream', 'record', 'drift', 'field', 'service has', 'synced', 'detail'];
  return (
    <>
      <h1>Reconcile report</h1>
      <ReconcileSummary r={r} />
      <p>
        Compared {comparedText(r)} ({r.streams.join(', ')}); cost {r.calls.collection} collection GETs and {r.calls.get} entity GETs in{' '}
        {(r.ms / 1000).toFixed(1)} s.
      </p>
      <table id="drifts">
        <tr>
          {heads.map((h) => (
            <th>{h}</th>
          ))}
        </tr>
        {r.drifts.length ? (
          r.drifts.map((d) => <DriftRow d={d} serviceBaseUrl={serviceBaseUrl} />)
        ) : (
          <tr>
            <td colspan={7} class="ok">
              No drift: the service matches what was synced.
            </td>
          </tr>
        )}
      </table>
      {r.unchecked.length ? (
        <>
          <h2>Not compared</h2>
          <ul>
            {r.unchecked.map((u) => (
              <li>
                {u.stream} {u.key}: {u.reason}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <p class="muted">
        Run it again with <code>inventory-sync reconcile</code>.
      </p>
    </>
  );
}
