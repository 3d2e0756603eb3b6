/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { StatusReport } from '../ops/status-report.js';
import { useAt, When } from './layout.js';

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
        No job of {st.stream} runs and none is pulled; {st.breaker.waiting} job(s) wait, none lost. Fix the cause (credentials, the
        account's rights, the service), then resume.
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
        Every stream holds: no job runs, none is pulled, none spends an attempt; {o.waiting} job(s) wait, none lost. {o.probes} probe(s) so
        far{o.lastProbe ? ` (last: ${o.lastProbe})` : ''}, the next at <When iso={o.nextProbeAt} /> UTC. Work goes on by itself when the
        service answers.
      </p>
    </div>
  );
}

/**
 * Every hold (src/queue/hold/), in one place at the top of the overview: the service down first (every stream holds),
 * then each stream held for refusals with its Resume button.
 */
export function HoldBanners({ s }: { s: Pick<StatusReport, 'outage' | 'streams'> }) {
  return (
    <>
      <OutageBanner o={s.outage} />
      {s.streams
        .filter((st) => st.breaker.paused)
        .map((st) => (
          <PausedBanner st={st} />
        ))}
    </>
  );
}
