import { Counter, type Registry } from 'prom-client';

/** What the receiver counts: deliveries by stream and answer, records by stream and outcome. */
export interface IngestMetrics {
  delivery(stream: string, status: number): void;
  records(stream: string, outcome: 'queued' | 'duplicate' | 'invalid', n: number): void;
  /** A webhook-id seen before came with another body (stored as a delivery of its own). */
  reusedId(stream: string): void;
}

/** Counters in the worker's registry (names in docs/push.md), or nothing counted without one. */
export function ingestMetrics(registry?: Registry): IngestMetrics {
  if (!registry) return { delivery: () => undefined, records: () => undefined, reusedId: () => undefined };
  const registers = [registry];
  const deliveries = new Counter({
    name: 'isync_ingest_deliveries_total',
    help: 'Pushes answered by the receiver, by stream ("unknown" for a name no kind has) and HTTP status.',
    labelNames: ['stream', 'status'],
    registers,
  });
  const records = new Counter({
    name: 'isync_ingest_records_total',
    help: 'Records of accepted pushes, by stream and outcome (queued, duplicate: its job existed, invalid: queued to fail).',
    labelNames: ['stream', 'outcome'],
    registers,
  });
  const reused = new Counter({
    name: 'isync_ingest_reused_ids_total',
    help: 'Pushes whose webhook-id was stored before with another body, by stream: each stored as a delivery of its own.',
    labelNames: ['stream'],
    registers,
  });
  return {
    reusedId: (stream) => reused.inc({ stream }),
    delivery: (stream, status) => deliveries.inc({ stream, status: String(status) }),
    records: (stream, outcome, n) => {
      if (n > 0) records.inc({ stream, outcome }, n);
    },
  };
}
