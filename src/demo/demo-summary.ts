import type { SyncSummary } from '../app/runtime.js';
import type { StreamName } from '../records/stream-name.js';
import { clip, renderTable } from '../cli/table.js';

export interface DemoReport {
  summary: SyncSummary;
  /** Completed jobs per stream by outcome (synced, unchanged, skipped). */
  outcomes: Partial<Record<StreamName, Record<string, number>>>;
  /** Whether every record ended as the bundled feed means it to. */
  asExpected: boolean;
  dashboardUrl: string;
  /** Dashboard login, when one is required (the user is shown, never the password). */
  dashboardUser?: string;
  metricsUrl?: string;
  /** The setting that points a command at the demo's Redis: `REDIS_URL=...` or `REDIS_CLUSTER_NODES=...`. */
  redisSetting: string;
  privateRedis: boolean;
  prefix: string;
  /** With --store: the prefix the store's orders are queued under (their own, beside the feed's). */
  storePrefix?: string;
  logFile: string;
  /** The demo keeps running (worker and dashboard) until Ctrl-C. */
  staysUp: boolean;
}

/** What the demo did, the bad records and why they failed, and where to look next. */
export function renderDemoSummary(r: DemoReport): string {
  const streams = Object.entries(r.summary.perStream) as Array<[StreamName, NonNullable<SyncSummary['perStream'][StreamName]>]>;
  const out: string[] = ['', `Demo synced the bundled feed in ${(r.summary.ms / 1000).toFixed(1)} s.`, ''];
  out.push(
    renderTable(
      ['STREAM', 'RECORDS', 'RE-DELIVERED', 'SYNCED', 'ALREADY MATCHED', 'FAILED'],
      streams.map(([s, x]) => {
        const o = r.outcomes[s] ?? {};
        return [s, x.queued + x.duplicates, x.duplicates, (o.synced ?? 0) + (o.skipped ?? 0), o.unchanged ?? 0, x.failed.length];
      }),
    ),
  );
  const failed = streams.flatMap(([s, x]) => x.failed.map((f) => ({ s, ...f })));
  if (failed.length) {
    out.push(
      '',
      `The feed holds ${failed.length} bad record${failed.length === 1 ? '' : 's'} on purpose; ` +
        'each failed at once, named with its field and reason, and nothing around it stopped:',
    );
    out.push(
      renderTable(
        ['STREAM', 'RECORD', 'WHY'],
        failed.map((f) => [f.s, f.key, clip(f.reason, 110)]),
      ),
    );
  }
  out.push('', r.asExpected ? 'Everything ended as expected.' : 'Some records did not end as the demo expects: see the log file below.');
  const cli = 'npm run cli --';
  out.push('', 'Where to look next:');
  if (r.staysUp) {
    out.push(
      `  Dashboard:  ${r.dashboardUrl}/   (overview, failed jobs by reason with a retry button; queues at ${r.dashboardUrl}/queues)` +
        `${r.dashboardUser ? `, log in as ${r.dashboardUser}` : ''}`,
    );
    if (r.metricsUrl) out.push(`  Metrics:    ${r.metricsUrl}/metrics   (health: ${r.metricsUrl}/healthz, ${r.metricsUrl}/readyz)`);
  } else out.push('  Dashboard and metrics: closed with the demo (--exit); run `npm run demo` without --exit to keep them up.');
  out.push(`  Logs:       ${r.logFile}   (JSON lines, one child logger per job)`);
  if (r.staysUp || !r.privateRedis) {
    out.push(`  Commands (another terminal${r.staysUp ? ', while the demo runs' : ''}):`);
    out.push(`    export ${r.redisSetting} QUEUE_PREFIX='${r.prefix}'`);
    out.push(`    ${cli} jobs list --state failed`);
    out.push(`    ${cli} jobs show ${failed[0]?.id ?? '<job id>'}`);
    out.push(`    ${cli} status`);
    if (r.storePrefix)
      out.push(
        "  The store's orders are under a prefix of their own:",
        `    QUEUE_PREFIX='${r.storePrefix}' ${cli} status`,
        `    QUEUE_PREFIX='${r.storePrefix}' ${cli} jobs list --state failed`,
      );
  }
  out.push('  Your own service: set INVENTORY_* and UPSTREAM_* (see docs/reference.md), then run `worker` or `sync --once`.');
  if (r.staysUp)
    out.push('', 'The worker and the dashboard keep running (orders are polled every few seconds). Press Ctrl-C to stop the demo.');
  return `${out.join('\n')}\n`;
}
