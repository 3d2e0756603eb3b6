import type { StatusReport } from '../ops/status-report.js';
import { callWaitingText, callWords, holdContext, outageWords, type HoldContext } from '../ops/hold-words.js';
import { shortDateTime } from '../time/date-format.js';
import { clip } from './table.js';
import { plural } from '../ops/state-words.js';

const when = (iso: string | null) => shortDateTime(iso, '-');

/** The hold for `outage` being ridden out, or the last one. */
function outageLines(s: Pick<StatusReport, 'outage'>, c: HoldContext): string[] {
  if (s.outage.open) {
    const w = outageWords(s.outage, c, clip);
    return [
      `SERVICE DOWN since ${when(s.outage.since)} UTC, ${plural(s.outage.waiting, 'job')} waiting. ` +
        `Why: ${clip(s.outage.reason ?? 'no reason recorded', 200)}`,
      `  ${w.holds} ${w.probes}`,
      '',
    ];
  }
  if (s.outage.last)
    return [
      `Last service outage: ${when(s.outage.last.since)} to ${when(s.outage.last.endedAt)} UTC (${s.outage.last.seconds} s), ` +
        `${plural(s.outage.last.waited, 'job')} waited; ended by itself.`,
      '',
    ];
  return [];
}

/** The streams held for refusals (the circuit breaker paused them), and how to resume each. */
function pausedLines(s: Pick<StatusReport, 'streams'>): string[] {
  return s.streams
    .filter((x) => x.breaker.paused)
    .flatMap((st) => [
      `PAUSED: ${st.stream} since ${when(st.breaker.since)} UTC, ${plural(st.breaker.waiting, 'job')} waiting. ` +
        `Why: ${clip(st.breaker.reason ?? 'no reason recorded', 200)}`,
      `  No job of ${st.stream} runs and none is pulled; none is lost. Fix the cause, then: inventory-sync resume --stream ${st.stream}`,
      '',
    ]);
}

/** How long ago a held call's last hold may have ended to be told. */
const RECENT_MS = 24 * 3600_000;

/** Each held call of the service (only the jobs whose next step it is wait), and those that ended in the last day. */
function callLines(s: Pick<StatusReport, 'calls' | 'outage'>, c: HoldContext): string[] {
  const held = s.calls.filter((x) => x.held);
  const lines = held.flatMap((x) => {
    const w = callWords(x, s.outage.open, c, clip);
    return [
      `HELD: ${x.label} since ${when(x.since)} UTC, ${callWaitingText(x.waiting)}. Why: ${clip(x.reason ?? 'no reason recorded', 200)}`,
      `  ${w.scope} ${w.trials}`,
      '',
    ];
  });
  const ended = s.calls.filter((x) => !x.held && x.last && c.now - Date.parse(x.last.endedAt) < RECENT_MS);
  for (const x of ended)
    lines.push(
      `Last held: ${x.label}, ${when(x.last!.since)} to ${when(x.last!.endedAt)} UTC ` +
        `(${x.last!.seconds} s, ${plural(x.last!.trials, 'trial')}); released by a request of its own.`,
      '',
    );
  return lines;
}

/**
 * Every hold (src/queue/hold/), in one place at the top of `status`: the service down, each held call, then each
 * paused stream; their times against the report's own (src/ops/hold-words.ts, the dashboard's words too).
 */
export function holdLines(s: Pick<StatusReport, 'outage' | 'streams' | 'calls' | 'at' | 'workers'>): string[] {
  const c = holdContext(s);
  return [...outageLines(s, c), ...callLines(s, c), ...pausedLines(s)];
}
