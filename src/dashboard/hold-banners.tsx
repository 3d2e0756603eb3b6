/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { StatusReport } from '../ops/status-report.js';
import { useAt, When } from './layout.js';
import { plural } from '../ops/state-words.js';

type StreamStatus = StatusReport['streams'][number];

/** A banner per stream held for refusals (its breaker paused it): since when, why, how many jobs wait, and the button that resumes it. */
function PausedBanner({ st }: { st: StreamStatus }) {
  const at = useAt();
  return (
    <div class="paused bad" role="alert" data-paused={st.stream}>
      <p>
        <strong>{st.stream} is paused</strong> since <When iso={st.breaker.since} /> UTC: the account refused every job (
        {st.breaker.refusals} in a row). Last: <code>{st.breaker.reason ?? 'no reason recorded'}</code>
      </p>
      <p>
        No job of {st.stream} runs and none is pulled; {plural(st.breaker.waiting, 'job')} {st.breaker.waiting === 1 ? 'waits' : 'wait'},
        none lost. Fix the cause (credentials, the account's rights, the service), then resume.
      </p>
      <form class="inline" method="post" action={at('/resume')}>
        <input type="hidden" name="stream" value={st.stream} />
        <button type="submit">Resume {st.stream}</button>
      </form>
    </div>
  );
}

/** While the service is held as down (the hold for `outage`): since when, why, the probes, how many jobs wait; it ends by itself (no button). */
function OutageBanner({ o }: { o: StatusReport['outage'] }) {
  if (!o.open) return null;
  return (
    <div class="paused bad" role="alert" data-outage="open">
      <p>
        <strong>The service is down</strong> since <When iso={o.since} /> UTC: <code>{o.reason ?? 'no reason recorded'}</code>
      </p>
      <p>
        Every stream holds: no job runs, none is pulled, none spends an attempt; {plural(o.waiting, 'job')}{' '}
        {o.waiting === 1 ? 'waits' : 'wait'}, none lost. {plural(o.probes, 'probe')} so far{o.lastProbe ? ` (last: ${o.lastProbe})` : ''},
        the next at <When iso={o.nextProbeAt} /> UTC. Work goes on by itself when the service answers.
      </p>
    </div>
  );
}

type CallStatus = StatusReport['calls'][number];

/** A banner per held call of the service: since when, why, the jobs that wait at it, its trials; it ends by itself (no button). */
function CallBanner({ c }: { c: CallStatus }) {
  const waiting = Object.entries(c.waiting).filter(([, n]) => n > 0);
  const n = waiting.reduce((a, [, k]) => a + k, 0);
  return (
    <div class="paused warn" role="alert" data-call={c.call}>
      <p>
        <strong>{c.label} is held</strong> since <When iso={c.since} /> UTC: <code>{c.reason ?? 'no reason recorded'}</code>
      </p>
      <p>
        Only the jobs whose next step is {c.label} wait there ({n}
        {waiting.length ? `: ${waiting.map(([stream, k]) => `${stream} ${k}`).join(', ')}` : ''}), no attempt spent; every other call and
        stream goes on{c.probe ? ` (a read: ${c.probe})` : ''}. {plural(c.trials, 'trial')} so far
        {c.lastTrial ? ` (last: ${c.lastTrial})` : ''}, the next at <When iso={c.nextTrialAt} /> UTC; it goes on by itself once a request of
        it works.
      </p>
    </div>
  );
}

/**
 * Every hold (src/queue/hold/), in one place at the top of the overview: the service down first (every stream holds),
 * then each held call (only the jobs that need it wait), then each stream held for refusals with its Resume button.
 */
export function HoldBanners({ s }: { s: Pick<StatusReport, 'outage' | 'streams' | 'calls'> }) {
  return (
    <>
      <OutageBanner o={s.outage} />
      {s.outage.open ? null : s.calls.filter((c) => c.held).map((c) => <CallBanner c={c} />)}
      {s.streams
        .filter((st) => st.breaker.paused)
        .map((st) => (
          <PausedBanner st={st} />
        ))}
    </>
  );
}
