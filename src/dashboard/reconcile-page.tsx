/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { comparedText, type ReconcileReport } from '../ops/reconcile-types.js';
import type { RepairItem } from '../ops/repair-plan.js';
import type { RepairReport } from '../ops/repair-report.js';
import { EntityLink } from './find-page.js';
import { Flash, useAt, When } from './layout.js';

/** What the reconcile page shows of repairs: each drift's planned repair, and the last repair run. */
export interface RepairView {
  /** The dashboard can run repairs (it has the service's configuration). */
  canRepair: boolean;
  /** Per drift (same order as the report's), its planned repair. */
  planned: Array<RepairItem | undefined>;
  last?: RepairReport;
  flash?: string;
}

/** One line for the overview: when reconcile last ran and what it found. */
export function ReconcileSummary({ r }: { r: ReconcileReport | undefined }) {
  const at = useAt();
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
      <a href={at('/reconcile')}>The report</a>
    </p>
  );
}

type Drift = ReconcileReport['drifts'][number];

/** A drift's planned repair, and its button when a job repairs it. */
function RepairCell({ d, item, canRepair }: { d: Drift; item?: RepairItem; canRepair: boolean }) {
  const at = useAt();
  if (!item) return <td />;
  const button =
    canRepair && item.action === 'repair' ? (
      <form class="inline" method="post" action={at('/repair')}>
        <input type="hidden" name="stream" value={d.stream} />
        <input type="hidden" name="key" value={d.key} />
        <button type="submit">Repair</button>
      </form>
    ) : null;
  return (
    <td class="repair" data-action={item.action}>
      <strong>{item.action === 'by-hand' ? 'by hand: ' : item.action === 'skipped' ? 'skipped: ' : ''}</strong>
      {item.what} {button}
    </td>
  );
}

function DriftRow({ d, serviceBaseUrl, item, canRepair }: { d: Drift; serviceBaseUrl?: string; item?: RepairItem; canRepair: boolean }) {
  const at = useAt();
  return (
    <tr data-key={d.key}>
      <td>{d.stream}</td>
      <td>
        <a href={at(`/find?key=${encodeURIComponent(d.key)}`)}>{d.key}</a>
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
      <RepairCell d={d} item={item} canRepair={canRepair} />
    </tr>
  );
}

/** The last reconcile report: what was compared, every drift naming the record and the field, what it cost. */
/** The last repair run: each drift, what was done and how it ended. */
function LastRepair({ r }: { r: RepairReport }) {
  const at = useAt();
  const n = (a: string) => r.items.filter((i) => i.action === a).length;
  return (
    <section id="last-repair">
      <h2>Last repair</h2>
      <p>
        Run {r.run}: repaired {n('repair')}, left to a person {n('by-hand')}, skipped {n('skipped')}.{' '}
        {r.after ? r.ok ? <span class="ok">no drift left</span> : <span class="bad">drift left</span> : null}
      </p>
      <table>
        <tr>
          {['stream', 'record', 'drift', 'action', 'what', 'result', 'job'].map((h) => (
            <th>{h}</th>
          ))}
        </tr>
        {r.items.map((i) => (
          <tr data-key={i.key}>
            <td>{i.stream}</td>
            <td>{i.key}</td>
            <td>
              <code>{i.kind}</code>
            </td>
            <td>{i.action}</td>
            <td>{i.what}</td>
            <td>{i.result ? `${i.result}${i.error ? `: ${i.error}` : ''}` : ''}</td>
            <td>{i.jobId && i.action === 'repair' ? <a href={at(`/jobs/${encodeURIComponent(i.jobId)}`)}>{i.jobId}</a> : null}</td>
          </tr>
        ))}
      </table>
    </section>
  );
}

export function ReconcileBody({
  r,
  serviceBaseUrl,
  repair,
}: {
  r: ReconcileReport | undefined;
  serviceBaseUrl?: string;
  repair?: RepairView;
}) {
  const at = useAt();
  if (!r) return <ReconcileSummary r={r} />;
  const heads = ['stream', 'record', 'drift', 'field', 'service has', 'synced', 'detail', 'repair'];
  const canRepair = repair?.canRepair ?? false;
  return (
    <>
      <h1>Reconcile report</h1>
      <Flash text={repair?.flash} />
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
          r.drifts.map((d, i) => <DriftRow d={d} serviceBaseUrl={serviceBaseUrl} item={repair?.planned[i]} canRepair={canRepair} />)
        ) : (
          <tr>
            <td colspan={8} class="ok">
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
      {r.drifts.length && canRepair ? (
        <form id="repair-all" method="post" action={at('/repair')}>
          <input type="hidden" name="all" value="1" />
          <label>
            <input type="checkbox" name="includeStock" value="1" /> include stock (other activity in the account can explain a difference)
          </label>{' '}
          <button type="submit">Repair all</button>
        </form>
      ) : null}
      {r.drifts.length && !canRepair ? (
        <p class="muted">
          Repairs run from a dashboard started with the service configured, or with <code>inventory-sync reconcile --repair</code>.
        </p>
      ) : null}
      {repair?.last ? <LastRepair r={repair.last} /> : null}
      <p class="muted">
        Run it again with <code>inventory-sync reconcile</code>; plan the repairs with{' '}
        <code>inventory-sync reconcile --repair --dry-run</code>.
      </p>
    </>
  );
}
