import { describe, expect, it } from 'vitest';
import { aggregationsAround, alertRules, dashboardPanels, DEPLOYMENT_ROW, metricNamesIn, panelQueries, rowPanels } from './deploy-files.js';

const overlap = (a: { x: number; y: number; w: number; h: number }, b: typeof a) =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

describe("deploy/'s Grafana dashboard", () => {
  it('reads every panel from the Prometheus picked in its datasource variable, each panel with an id of its own, none over another', () => {
    const panels = dashboardPanels();
    const ids = panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const shown = panels.filter((p) => p.type !== 'row');
    for (const p of shown) {
      expect(p.datasource, p.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      for (const t of p.targets ?? []) expect(t.datasource, p.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
    }
    const laid = panels.filter((p) => !panels.some((row) => row.panels?.includes(p)));
    const clashes = laid.flatMap((a, i) =>
      laid
        .slice(i + 1)
        .filter((b) => overlap(a.gridPos, b.gridPos))
        .map((b) => `${a.title} / ${b.title}`),
    );
    expect(clashes).toEqual([]);
  });

  it("has a Deployment row first: accounts in trouble and why, jobs by state, records waiting, calls held, queues paused, the summary's age", () => {
    const panels = rowPanels(DEPLOYMENT_ROW);
    expect(dashboardPanels()[0]!.title).toBe(DEPLOYMENT_ROW);
    const read = new Set(panelQueries(panels).flatMap((q) => metricNamesIn(q.expr)));
    expect([...read].sort()).toEqual([
      'isync_account_trouble',
      'isync_deployment_accounts',
      'isync_deployment_calls_held',
      'isync_deployment_jobs',
      'isync_deployment_queues_paused',
      'isync_deployment_swept_timestamp_seconds',
      'isync_deployment_waiting_records',
    ]);
    // The deployment's figures are every account's: no account variable narrows them.
    expect(panelQueries(panels).filter((q) => q.expr.includes('$account'))).toEqual([]);
  });

  it("takes the deployment's figures' largest over the processes, never their sum, in every panel and rule", () => {
    // Every worker serves the same figures (docs/monitoring.md, "Counting over processes").
    const exprs = [
      ...panelQueries().map((q) => ({ where: `panel "${q.panel}"`, expr: q.expr })),
      ...alertRules().flatMap((r) => [r.expr, ...r.queries].map((expr) => ({ where: `rule ${r.alert}`, expr }))),
    ];
    const reads = exprs.flatMap((e) => aggregationsAround(e.expr, 'isync_deployment_').map((agg) => `${e.where}: ${agg ?? 'none'}`));
    expect(reads.filter((r) => !r.endsWith(': max'))).toEqual([]);
    // Not an empty check: six rules and six panels read them.
    expect(reads.length).toBeGreaterThanOrEqual(12);
    // And it can tell.
    expect(aggregationsAround('sum by (state) (isync_deployment_jobs)', 'isync_deployment_')).toEqual(['sum']);
    expect(aggregationsAround('time() - isync_deployment_swept_timestamp_seconds', 'isync_deployment_')).toEqual([undefined]);
    expect(aggregationsAround('max without(instance, pod) (delta(isync_deployment_waiting_records[1h]))', 'isync_deployment_')).toEqual([
      'max',
    ]);
  });
});
