/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { FindResult } from '../ops/find.js';
import type { JobStory } from '../ops/job-inspect.js';
import type { ReconcileReport } from '../ops/reconcile-types.js';
import type { StatusReport } from '../ops/status-report.js';
import type { FlowSeries } from '../ops/flow-metrics.js';
import type { AccountsView } from './accounts-board.js';
import { AccountsOverview, NoSuchPage } from './accounts-page.js';
import { FindResultBody } from './find-page.js';
import { JobBody } from './job-page.js';
import { Page, renderPage, type Shell } from './layout.js';
import { Overview } from './overview-page.js';
import { ReconcileBody, type RepairView } from './reconcile-page.js';

/** Each page of the dashboard as the HTML to send, for the routes. */

export function overviewHtml(
  s: StatusReport,
  shell: Shell,
  o: { flash?: string; reconcile?: ReconcileReport; budget?: FlowSeries['budget'] },
): string {
  return renderPage(
    <Page title="Overview" shell={shell} scripts={['/assets/flow-charts.js']}>
      <Overview s={s} flash={o.flash} reconcile={o.reconcile} budget={o.budget} />
    </Page>,
  );
}

export function jobHtml(story: JobStory, shell: Shell, flash?: string): string {
  return renderPage(
    <Page title={`Job ${story.id}`} shell={shell}>
      <JobBody s={story} flash={flash} />
    </Page>,
  );
}

export function noJobHtml(id: string, shell: Shell & { prefix: string }): string {
  return renderPage(
    <Page title="No such job" shell={shell}>
      <p>
        No job <code>{id}</code> under prefix {shell.prefix}.
      </p>
    </Page>,
  );
}

export function badRequestHtml(problem: string, shell: Shell): string {
  return renderPage(
    <Page title="Bad request" shell={shell}>
      <p>{problem}</p>
    </Page>,
  );
}

export function findHtml(r: FindResult, shell: Shell, serviceBaseUrl?: string): string {
  return renderPage(
    <Page title={`Find ${r.key}`} shell={shell}>
      <FindResultBody r={r} serviceBaseUrl={serviceBaseUrl} />
    </Page>,
  );
}

export function reconcileHtml(r: ReconcileReport | undefined, shell: Shell, serviceBaseUrl?: string, repair?: RepairView): string {
  return renderPage(
    <Page title="Reconcile" shell={shell}>
      <ReconcileBody r={r} serviceBaseUrl={serviceBaseUrl} repair={repair} />
    </Page>,
  );
}

export function accountsHtml(v: AccountsView, streams: readonly string[], shell: Shell): string {
  return renderPage(
    <Page title="All accounts" shell={shell}>
      <AccountsOverview v={v} streams={streams} />
    </Page>,
  );
}

export function noAccountsPageHtml(v: AccountsView, shell: Shell): string {
  return renderPage(
    <Page title={`No page ${v.page}`} shell={shell}>
      <NoSuchPage v={v} />
    </Page>,
  );
}

export function noAccountHtml(name: string, shell: Shell): string {
  return renderPage(
    <Page title="No such account" shell={shell}>
      <p>
        No account <code>{name.slice(0, 40)}</code> in ACCOUNTS_FILE.{' '}
        <a href={`/?q=${encodeURIComponent(name.slice(0, 40).toLowerCase())}`}>Search the accounts</a> · <a href="/">All accounts</a>
      </p>
    </Page>,
  );
}
