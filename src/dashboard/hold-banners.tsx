/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { StatusReport } from '../ops/status-report.js';
import { useAt, When } from './layout.js';
import { plural } from '../ops/state-words.js';
import { callWaitingText, callWords, holdContext, outageWords, type HoldContext } from '../ops/hold-words.js';

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
function OutageBanner({ o, c }: { o: StatusReport['outage']; c: HoldContext }) {
  if (!o.open) return null;
  const w = outageWords(o, c);
  return (
    <div class="paused bad" role="alert" data-outage="open">
      <p>
        <strong>The service is down</strong> since <When iso={o.since} /> UTC: <code>{o.reason ?? 'no reason recorded'}</code>
      </p>
      <p>
        {plural(o.waiting, 'job')} {o.waiting === 1 ? 'waits' : 'wait'}, none lost. {w.holds} {w.probes}
      </p>
    </div>
  );
}

type CallStatus = StatusReport['calls'][number];

/**
 * A banner per held call of the service: since when, why, the jobs that wait at it, its trials (inside an outage, its
 * trial waits for the service); it ends by itself (no button). The words are `status`'s (src/ops/hold-words.ts).
 */
function CallBanner({ call, outageOpen, c }: { call: CallStatus; outageOpen: boolean; c: HoldContext }) {
  const w = callWords(call, outageOpen, c);
  return (
    <div class="paused warn" role="alert" data-call={call.call}>
      <p>
        <strong>{call.label} is held</strong> since <When iso={call.since} /> UTC: <code>{call.reason ?? 'no reason recorded'}</code>
      </p>
      <p>
        {callWaitingText(call.waiting)}. {w.scope} {w.trials}
      </p>
    </div>
  );
}

/**
 * Every hold (src/queue/hold/), in one place at the top of the overview, as `status` lists them: the service down
 * first (every stream holds), then each held call (only the jobs that need it wait), then each stream held for
 * refusals with its Resume button.
 */
export function HoldBanners({ s }: { s: Pick<StatusReport, 'outage' | 'streams' | 'calls' | 'at' | 'workers'> }) {
  const c = holdContext(s);
  return (
    <>
      <OutageBanner o={s.outage} c={c} />
      {s.calls
        .filter((call) => call.held)
        .map((call) => (
          <CallBanner call={call} outageOpen={s.outage.open} c={c} />
        ))}
      {s.streams
        .filter((st) => st.breaker.paused)
        .map((st) => (
          <PausedBanner st={st} />
        ))}
    </>
  );
}
