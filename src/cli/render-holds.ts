import type { StatusReport } from '../ops/status-report.js';
import { shortDateTime } from '../time/date-format.js';
import { clip } from './table.js';

const when = (iso: string | null) => shortDateTime(iso, '-');

/** The hold for `outage` being ridden out, or the last one. */
function outageLines(s: Pick<StatusReport, 'outage'>): string[] {
  if (s.outage.open)
    return [
      `SERVICE DOWN since ${when(s.outage.since)} UTC, ${s.outage.waiting} job(s) waiting. ` +
        `Why: ${clip(s.outage.reason ?? 'no reason recorded', 200)}`,
      `  Every stream holds: no job runs, none is pulled, none spends an attempt. ${s.outage.probes} probe(s) so far` +
        `${s.outage.lastProbe ? ` (last: ${clip(s.outage.lastProbe, 80)})` : ''}, the next at ${when(s.outage.nextProbeAt)} UTC; ` +
        'work goes on by itself when the service answers.',
      '',
    ];
  if (s.outage.last)
    return [
      `Last service outage: ${when(s.outage.last.since)} to ${when(s.outage.last.endedAt)} UTC (${s.outage.last.seconds} s), ` +
        `${s.outage.last.waited} job(s) waited; ended by itself.`,
      '',
    ];
  return [];
}

/** The streams held for refusals (the circuit breaker paused them), and how to resume each. */
function pausedLines(s: Pick<StatusReport, 'streams'>): string[] {
  return s.streams
    .filter((x) => x.breaker.paused)
    .flatMap((st) => [
      `PAUSED: ${st.stream} since ${when(st.breaker.since)} UTC, ${st.breaker.waiting} job(s) waiting. ` +
        `Why: ${clip(st.breaker.reason ?? 'no reason recorded', 200)}`,
      `  No job of ${st.stream} runs and none is pulled; none is lost. Fix the cause, then: inventory-sync resume --stream ${st.stream}`,
      '',
    ]);
}

/** Every hold (src/queue/hold/), in one place at the top of `status`: the service down, then each paused stream. */
export function holdLines(s: Pick<StatusReport, 'outage' | 'streams'>): string[] {
  return [...outageLines(s), ...pausedLines(s)];
}
