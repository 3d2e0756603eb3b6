import type { StatusReport } from '../ops/status-report.js';
import { shortDateTime } from '../time/date-format.js';
import { clip } from './table.js';
import { plural } from '../ops/state-words.js';

const when = (iso: string | null) => shortDateTime(iso, '-');

/** The hold for `outage` being ridden out, or the last one. */
function outageLines(s: Pick<StatusReport, 'outage'>): string[] {
  if (s.outage.open)
    return [
      `SERVICE DOWN since ${when(s.outage.since)} UTC, ${plural(s.outage.waiting, 'job')} waiting. ` +
        `Why: ${clip(s.outage.reason ?? 'no reason recorded', 200)}`,
      `  Every stream holds: no job runs, none is pulled, none spends an attempt. ${plural(s.outage.probes, 'probe')} so far` +
        `${s.outage.lastProbe ? ` (last: ${clip(s.outage.lastProbe, 80)})` : ''}, the next at ${when(s.outage.nextProbeAt)} UTC; ` +
        'work goes on by itself when the service answers.',
      '',
    ];
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

const waitingText = (w: Record<string, number>) => {
  const parts = Object.entries(w).filter(([, n]) => n > 0);
  const n = parts.reduce((a, [, k]) => a + k, 0);
  const by = parts.length ? ` (${parts.map(([stream, k]) => `${stream} ${k}`).join(', ')})` : '';
  return `${plural(n, 'job')} ${n === 1 ? 'waits' : 'wait'} at it${by}`;
};

/** Each held call of the service (only the jobs whose next step it is wait), and those that ended in the last day. */
function callLines(s: Pick<StatusReport, 'calls'>, now: number): string[] {
  const held = s.calls.filter((c) => c.held);
  const lines = held.flatMap((c) => [
    `HELD: ${c.label} since ${when(c.since)} UTC, ${waitingText(c.waiting)}. Why: ${clip(c.reason ?? 'no reason recorded', 200)}`,
    `  Only the jobs whose next step is ${c.label} wait there (no attempt spent); every other call and stream goes on` +
      `${c.probe ? ` (a read: ${clip(c.probe, 80)})` : ''}. ${plural(c.trials, 'trial')} so far` +
      `${c.lastTrial ? ` (last: ${clip(c.lastTrial, 80)})` : ''}, the next at ${when(c.nextTrialAt)} UTC; goes on by itself once it works.`,
    '',
  ]);
  const ended = s.calls.filter((c) => !c.held && c.last && now - Date.parse(c.last.endedAt) < RECENT_MS);
  for (const c of ended)
    lines.push(
      `Last held: ${c.label}, ${when(c.last!.since)} to ${when(c.last!.endedAt)} UTC ` +
        `(${c.last!.seconds} s, ${plural(c.last!.trials, 'trial')}); released by a request of its own.`,
      '',
    );
  return lines;
}

/**
 * Every hold (src/queue/hold/), in one place at the top of `status`: the service down, each held call, then each
 * paused stream.
 */
export function holdLines(s: Pick<StatusReport, 'outage' | 'streams' | 'calls'>, now = Date.now()): string[] {
  return [...outageLines(s), ...callLines(s, now), ...pausedLines(s)];
}
