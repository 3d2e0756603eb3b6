import { Gauge, Registry } from 'prom-client';
import type { DeploymentSummary } from '../queue/dispatch/deployment-summary.js';
import type { AccountSeries } from './account-trouble.js';

/**
 * The deployment's figures in /metrics (`isync_deployment_*`), from the sweep's summary in Redis
 * (src/queue/dispatch/deployment-summary.ts): every account of the deployment, open or closed in any process. Every
 * process serves the same values, so that a scrape of any one of them has them: over processes, take their largest
 * (`max without(instance)`), never their sum. None before the first sweep, or once the summary expired.
 */
export function deploymentSeries() {
  const registry = new Registry();
  const g = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name, help, labelNames, registers: [registry] });
  const same = ' The same in every process (take max without(instance), not sum).';
  const accounts = g('isync_deployment_accounts', `Accounts the sweep read (state="swept"), and those in trouble (troubled).${same}`, [
    'state',
  ]);
  const jobs = g(
    'isync_deployment_jobs',
    'Jobs of every account by state: ready, held (in a paused queue), failed, failed-recent (in the last hour), untold ' +
      `(no alert told yet).${same}`,
    ['state'],
  );
  const paused = g('isync_deployment_queues_paused', `Queues paused, over every account.${same}`);
  const calls = g('isync_deployment_calls_held', `Calls of the service held, over every account.${same}`);
  const waits = g('isync_deployment_waiting_records', `Records waiting for a reference, over every account.${same}`);
  const at = g('isync_deployment_swept_timestamp_seconds', `When the sweep last read every account (epoch s).${same}`);
  return {
    /** The summary's series (none without one). */
    async of(s: DeploymentSummary | undefined): Promise<AccountSeries> {
      if (!s) return [];
      accounts.set({ state: 'swept' }, s.accounts);
      accounts.set({ state: 'troubled' }, s.troubled);
      for (const [state, n] of Object.entries(s.jobs)) jobs.set({ state }, n);
      paused.set(s.paused);
      calls.set(s.heldCalls);
      waits.set(s.waits);
      at.set(s.at / 1000);
      return registry.getMetricsAsJSON();
    },
  };
}
