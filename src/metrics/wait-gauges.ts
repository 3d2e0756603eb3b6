import { Gauge, type Registry } from 'prom-client';

/** What the waiting records' gauges read at scrape time (src/queue/wait/). */
export interface WaitSource {
  /** Records that wait now, per stream. */
  counts: Record<string, number>;
  /** The (stream, reference) groups waited for, and how long the oldest has waited, in seconds (0: none waits). */
  groups: number;
  oldestSeconds: number;
}

/**
 * The records that wait for a product or facility the service lacks: per stream (kind), the groups and the oldest
 * wait. No label names a reference: references come from the records, and a label each would grow without bound.
 */
export function waitGauges(registers: Registry[], read: (() => Promise<WaitSource>) | undefined): void {
  let last: Promise<WaitSource> | undefined;
  // One read per scrape for the three gauges.
  const source = () => (last ??= read!().finally(() => setTimeout(() => (last = undefined), 100).unref()));
  new Gauge({
    name: 'isync_waiting_records',
    help: 'Records that wait for a product or facility the service lacks, per stream: no attempt spent, each goes on once it exists.',
    labelNames: ['stream'],
    registers,
    async collect() {
      if (!read) return;
      this.reset();
      for (const [stream, n] of Object.entries((await source()).counts)) this.set({ stream }, n);
    },
  });
  new Gauge({
    name: 'isync_waiting_references',
    help: 'What waiting records wait for: (stream, product or facility) groups.',
    registers,
    async collect() {
      if (read) this.set((await source()).groups);
    },
  });
  new Gauge({
    name: 'isync_waiting_oldest_seconds',
    help: 'How long the oldest waiting record has waited (0 when none waits); past WAIT_FOR_REFERENCE_HOURS it fails.',
    registers,
    async collect() {
      if (read) this.set((await source()).oldestSeconds);
    },
  });
}
