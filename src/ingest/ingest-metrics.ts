import { Counter, type Registry } from 'prom-client';

/** The account label of a request that names no account the receiver serves (the label never holds a guessed name). */
export const NO_ACCOUNT = '(none)';
export const UNKNOWN_ACCOUNT = '(unknown)';

/** What the receiver counts: deliveries by stream and answer, records by stream and outcome; by account with several. */
export interface IngestMetrics {
  delivery(account: string, stream: string, status: number): void;
  records(account: string, stream: string, outcome: 'queued' | 'duplicate' | 'invalid', n: number): void;
  /** A webhook-id seen before came with another body (stored as a delivery of its own). */
  reusedId(account: string, stream: string): void;
}

export interface IngestMetricsOptions {
  /** Each counter has an `account` label (ACCOUNTS_FILE's accounts). Default false: the labels of one account. */
  labelAccounts?: boolean;
}

/** Counters in the worker's registry (names in docs/push.md), or nothing counted without one. */
export function ingestMetrics(registry?: Registry, o: IngestMetricsOptions = {}): IngestMetrics {
  if (!registry) return { delivery: () => undefined, records: () => undefined, reusedId: () => undefined };
  const registers = [registry];
  const byAccount = o.labelAccounts === true;
  const account = byAccount ? ['account'] : [];
  const labels = (name: string, rest: Record<string, string>): Record<string, string> => (byAccount ? { account: name, ...rest } : rest);
  const deliveries = new Counter({
    name: 'isync_ingest_deliveries_total',
    help: 'Pushes answered by the receiver, by stream ("unknown" for a name no kind has) and HTTP status.',
    labelNames: [...account, 'stream', 'status'],
    registers,
  });
  const records = new Counter({
    name: 'isync_ingest_records_total',
    help: 'Records of accepted pushes, by stream and outcome (queued, duplicate: its job existed, invalid: queued to fail).',
    labelNames: [...account, 'stream', 'outcome'],
    registers,
  });
  const reused = new Counter({
    name: 'isync_ingest_reused_ids_total',
    help: 'Pushes whose webhook-id was stored before with another body, by stream: each stored as a delivery of its own.',
    labelNames: [...account, 'stream'],
    registers,
  });
  return {
    reusedId: (name, stream) => reused.inc(labels(name, { stream })),
    delivery: (name, stream, status) => deliveries.inc(labels(name, { stream, status: String(status) })),
    records: (name, stream, outcome, n) => {
      if (n > 0) records.inc(labels(name, { stream, outcome }), n);
    },
  };
}
