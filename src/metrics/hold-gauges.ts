import { Counter, Gauge, type Registry } from 'prom-client';
import type { HoldReport } from '../queue/hold/hold-report.js';
import type { WriteState } from '../queue/hold/write-probe.js';

/** What the hold gauges read at scrape time: each stream's hold for refusals and the outage (src/queue/hold/). */
export type HoldSource = () => Promise<{
  streams: ReadonlyArray<Pick<HoldReport['streams'][number], 'stream' | 'paused' | 'refusals'>>;
  outage: Pick<HoldReport['outage'], 'open' | 'since'>;
  calls: ReadonlyArray<Pick<HoldReport['calls'][number], 'call' | 'held' | 'since' | 'opened'>>;
}>;

/** One read of the holds serves every gauge of a scrape (prom-client collects them one after the other). */
function oncePerScrape(read: HoldSource): HoldSource {
  let last: { at: number; report: ReturnType<HoldSource> } | undefined;
  return () => {
    if (!last || Date.now() - last.at > 500) last = { at: Date.now(), report: read() };
    return last.report;
  };
}

type HoldRead = Awaited<ReturnType<HoldSource>>;

/** A gauge with one label, set at scrape time to one value per row of the holds' read (its streams, its calls). */
function labelled<R>(
  registers: Registry[],
  holds: HoldSource | undefined,
  g: { name: string; help: string; label: string; rows: (h: HoldRead) => readonly R[]; key: (r: R) => string; value: (r: R) => number },
): void {
  new Gauge({
    name: g.name,
    help: g.help,
    labelNames: [g.label],
    registers,
    aggregator: 'max',
    async collect() {
      if (!holds) return;
      this.reset();
      for (const r of g.rows(await holds())) this.set({ [g.label]: g.key(r) }, g.value(r));
    },
  });
}

/** Each named call of the service's hold (src/queue/hold/call-hold.ts): held, for how long, how often. */
function callGauges(registers: Registry[], holds: HoldSource | undefined): void {
  const perCall = (name: string, help: string, value: (c: HoldRead['calls'][number]) => number) =>
    labelled(registers, holds, { name, help, label: 'call', rows: (h) => h.calls, key: (c) => c.call, value });
  perCall(
    'isync_call_held',
    'Whether a named call of the service (shipment-create, variance, ...) is held (1): the jobs whose next step is it wait, the rest runs.',
    (c) => (c.held ? 1 : 0),
  );
  perCall('isync_call_held_seconds', 'How long the call has been held (0 while it works).', (c) =>
    c.held && c.since ? Math.max(0, (Date.now() - Date.parse(c.since)) / 1000) : 0,
  );
  new Counter({
    name: 'isync_call_holds_total',
    help: 'Times each named call of the service was held (a run of 5xx, resets or time-outs), as the account keeps them.',
    labelNames: ['call'],
    registers,
    async collect() {
      if (!holds) return;
      this.reset();
      for (const c of (await holds()).calls) this.inc({ call: c.call }, c.opened);
    },
  });
}

/**
 * Every hold's gauges, in one place: per stream, held for refusals and the refusals in a row; the outage, held and
 * for how long; and, in a process that probes Redis's writes, how long Redis has refused them (`watchRedisWrites`).
 */
export function holdGauges(registers: Registry[], source: HoldSource | undefined): { watchRedisWrites(read: () => WriteState): void } {
  const holds = source && oncePerScrape(source);
  const perStream = (name: string, help: string, value: (b: HoldRead['streams'][number]) => number) =>
    labelled(registers, holds, { name, help, label: 'stream', rows: (h) => h.streams, key: (b) => b.stream, value });
  perStream(
    'isync_stream_paused',
    'Whether the stream is paused by its circuit breaker (1) until `inventory-sync resume` (the account refused every job), or runs (0).',
    (b) => (b.paused ? 1 : 0),
  );
  perStream(
    'isync_breaker_refusals',
    "Refusals about the account (401, 403, the same service refusal again) met by the stream's jobs in a row; " +
      'the stream pauses at BREAKER_THRESHOLD.',
    (b) => b.refusals,
  );
  new Gauge({
    name: 'isync_service_down',
    help: 'Whether the service is held as down for everything (1): every stream holds and one read probes it, going on by itself.',
    registers,
    aggregator: 'max',
    async collect() {
      if (!holds) return;
      this.set((await holds()).outage.open ? 1 : 0);
    },
  });
  new Gauge({
    name: 'isync_service_down_seconds',
    help: 'How long the service has been held as down (0 when it answers).',
    registers,
    aggregator: 'max',
    async collect() {
      if (!holds) return;
      const { open, since } = (await holds()).outage;
      this.set(open && since ? Math.max(0, (Date.now() - Date.parse(since)) / 1000) : 0);
    },
  });
  callGauges(registers, holds);
  // One gauge however often a process starts watching: an account that pulls keeps its registry across its turns, and
  // each turn starts a watch of its own (the gauge reads the latest).
  let read: (() => WriteState) | undefined;
  return {
    watchRedisWrites(latest) {
      const first = read === undefined;
      read = latest;
      if (first) redisWritesGauge(registers, () => read!());
    },
  };
}

/**
 * `isync_redis_writes_refused_seconds`: how long this process's write probe has seen Redis refuse writes (an account's
 * registry, or, with ACCOUNTS_FILE, the process's own: src/cli/commands/worker-accounts.ts).
 */
export function redisWritesGauge(registers: Registry[], read: () => WriteState): void {
  new Gauge({
    name: 'isync_redis_writes_refused_seconds',
    help:
      'Seconds since Redis began to refuse writes (full, read-only) or to answer none, as seen by this process; ' +
      '0 while it takes them.',
    registers,
    aggregator: 'max',
    collect() {
      const s = read();
      this.set(s.refusing ? Math.max(1, Math.round((Date.now() - s.since!) / 1000)) : 0);
    },
  });
}
