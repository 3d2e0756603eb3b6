import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import { readHolds } from '../queue/hold/hold-report.js';
import { plural } from './state-words.js';
import { nextTryText } from './hold-words.js';
import type { WriteState } from '../queue/hold/write-probe.js';

/** One line of /readyz. */
export interface HoldCheck {
  name: string;
  ok: boolean;
  detail?: string;
}

const since = (s: WriteState) => `${new Date(s.since!).toISOString()} (${Math.round((Date.now() - s.since!) / 1000)} s)`;

/** The hold for `redis-refused`: not ready while Redis refuses writes (or answers none), saying why. */
export function redisWritesCheck(s: WriteState): HoldCheck {
  if (!s.refusing) return { name: 'redis-writes', ok: true };
  return {
    name: 'redis-writes',
    ok: false,
    detail: `Redis ${s.answered ? 'refuses writes' : 'does not answer writes'} since ${since(s)}: ${s.why}${s.hint ? `. ${s.hint}` : ''}`,
  };
}

/**
 * The worker's /readyz lines about its holds (src/queue/hold/): `redis-writes`, not ready while Redis refuses writes
 * (this process can do nothing; another may reach a Redis that takes them), and `streams`, always ok (a stream held
 * for refusals waits for `resume`, one held for the outage for the service; restarting or unrouting the worker would
 * not help), with each held stream, since when and why, and the outage, in `detail`.
 */
export function holdChecks(o: { redis: Redis; keys: RedisKeys; streams: readonly string[]; writes: () => WriteState }): {
  writes: () => Promise<HoldCheck>;
  streams: () => Promise<HoldCheck>;
} {
  return {
    writes: async () => redisWritesCheck(o.writes()),
    streams: async () => {
      const { streams, outage, calls } = await readHolds(o.redis, o.keys, o.streams);
      const paused = streams.filter((b) => b.paused);
      const held = calls.filter((c) => c.held);
      if (!paused.length && !outage.open && !held.length) return { name: 'streams', ok: true };
      const why = (reason: string | null) => reason ?? 'no reason recorded';
      const lines = paused.map(
        (b) => `${b.stream} paused since ${b.since ?? '?'} (${why(b.reason)}); inventory-sync resume --stream ${b.stream}`,
      );
      // This process is a worker: a try that is due is its to send (src/ops/hold-words.ts, status's words of the times).
      const now = { now: Date.now(), workers: 1 };
      // One call held: only the jobs whose next step is it wait; everything else runs, unless the service is down.
      lines.push(
        ...held.map(
          (c) =>
            `${c.label} held since ${c.since ?? '?'} (${why(c.reason)}): only the jobs whose next step is it wait` +
            (outage.open
              ? `; its trial goes once the service answers again`
              : `, every other call runs; ${plural(c.trials, 'trial')}, ${nextTryText('trial', c.nextTrialAt, now)}; goes on by itself`),
        ),
      );
      // The service down: every stream holds and goes on by itself once a probe finds it answering.
      if (outage.open)
        lines.unshift(
          `the service is down since ${outage.since ?? '?'} (${outage.reason ?? 'no reason recorded'}): every stream holds; ` +
            `${plural(outage.probes, 'probe')}, ${nextTryText('probe', outage.nextProbeAt, now)}; goes on by itself`,
        );
      return { name: 'streams', ok: true, detail: lines.join('; ') };
    },
  };
}
