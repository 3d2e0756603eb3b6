import type { StatusReport } from './status-report.js';
import { shortDateTime } from '../time/date-format.js';
import { plural } from './state-words.js';

/**
 * What `status`, the dashboard's banners and /readyz say of the holds (src/queue/hold/), in one wording: the service
 * down for everything, each held call, and when each one's next try goes. Each surface reads its report's own time as
 * now, so a time that has passed is never called the next, and a held call inside an outage is not said to leave
 * every other call running.
 */

/** What the words need beside the holds: now (the report's time, epoch ms) and the workers running (who sends a try). */
export interface HoldContext {
  now: number;
  workers: number;
}

/** A report's context: its own time and its workers. */
export const holdContext = (s: Pick<StatusReport, 'at' | 'workers'>): HoldContext => ({
  now: Date.parse(s.at),
  workers: s.workers.running,
});

/** Cuts a text a hold quotes (a reason, an answer) to `max` characters; the CLI passes its own, the dashboard none. */
export type Fit = (text: string, max: number) => string;
const whole: Fit = (text) => text;

const utc = (iso: string) => `${shortDateTime(iso)} UTC`;

/**
 * When the next probe (the outage) or trial (a held call) goes: "the next at 19:04:42 UTC" while that is ahead; once it
 * has passed, that it is due and what sends it (or that no worker runs to), never a past time called the next.
 */
export function nextTryText(what: 'probe' | 'trial', nextAt: string | null, c: HoldContext): string {
  if (!nextAt) return `no next ${what} set yet`;
  if (Date.parse(nextAt) > c.now) return `the next at ${utc(nextAt)}`;
  if (c.workers === 0) return `the next was due at ${utc(nextAt)}, and no worker runs to send it`;
  return what === 'probe'
    ? `the next due now (since ${utc(nextAt)}): a worker sends it at its next look`
    : `the next due now (since ${utc(nextAt)}): the next job whose step it is sends it`;
}

/** "(last at 19:04:40 UTC: [TRANSIENT] ...)", or only the answer when its time is not known. */
function lastText(answer: string | null, at: string | null, fit: Fit): string {
  if (!answer) return '';
  return ` (last${at ? ` at ${utc(at)}` : ''}: ${fit(answer, 80)})`;
}

/** The hold for `outage`, in two sentences: what holds, and its probes. */
export function outageWords(o: StatusReport['outage'], c: HoldContext, fit: Fit = whole): { holds: string; probes: string } {
  return {
    holds: 'Every stream holds: no job runs, none is pulled, none spends an attempt.',
    probes:
      `${plural(o.probes, 'probe')} so far${lastText(o.lastProbe, o.lastProbeAt, fit)}, ${nextTryText('probe', o.nextProbeAt, c)}; ` +
      'work goes on by itself when the service answers.',
  };
}

/** "2 jobs wait at it (orders 2)". */
export function callWaitingText(waiting: Readonly<Record<string, number>>): string {
  const parts = Object.entries(waiting).filter(([, n]) => n > 0);
  const n = parts.reduce((a, [, k]) => a + k, 0);
  const by = parts.length ? ` (${parts.map(([stream, k]) => `${stream} ${k}`).join(', ')})` : '';
  return `${plural(n, 'job')} ${n === 1 ? 'waits' : 'wait'} at it${by}`;
}

/**
 * A held call, in two sentences: who waits at it (and, unless the service is down for everything, that the rest goes
 * on), and its trials. Inside an outage its trial waits for the service to answer again (docs/holds.md).
 */
export function callWords(
  call: StatusReport['calls'][number],
  outageOpen: boolean,
  c: HoldContext,
  fit: Fit = whole,
): { scope: string; trials: string } {
  const who = `Only the jobs whose next step is ${call.label} wait there, no attempt spent`;
  const tried = `${plural(call.trials, 'trial')} so far${lastText(call.lastTrial, call.lastTrialAt, fit)}`;
  if (outageOpen)
    return {
      scope: `${who}; the service is down for everything (above), so every stream holds.`,
      trials: `${tried}; its trial goes once the service answers again, and it goes on by itself once a request of it works.`,
    };
  return {
    scope: `${who}; every other call and stream goes on${call.probe ? ` (a read: ${fit(call.probe, 80)})` : ''}.`,
    trials: `${tried}, ${nextTryText('trial', call.nextTrialAt, c)}; it goes on by itself once a request of it works.`,
  };
}
