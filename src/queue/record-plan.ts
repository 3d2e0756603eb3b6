/** One write the real run would send: method, path (placeholders such as `{shipmentUrl}` for ids the service assigns) and body. */
export interface PlannedCall {
  method: 'POST';
  /** The path as the real run sends it, e.g. /acme/api/order; `{shipmentUrl}` where the service assigns the id. */
  path: string;
  body: unknown;
  /** What it does, for people: "create the order", "ship the shipment". */
  what: string;
}

/** A read the preview made through the service client (the real run makes it too). */
export interface PlannedRead {
  method: 'GET';
  path: string;
}

/**
 * How a record would end in the real run. writes: it sends `calls`; unchanged: already synced or already
 * matching, no write; skipped: deliberately not applied (reason in the summary); fails: the job would fail at once
 * (`error`; a bad record is `BAD_RECORD`); duplicate: the same record again in this run, or its job failed before
 * (the real run adds nothing for it either).
 */
export type PlanOutcome = 'writes' | 'unchanged' | 'skipped' | 'fails' | 'duplicate';

/** The dry run's answer for one record: what the real run would do with it, as data. */
export interface RecordPlan {
  stream: string;
  /** The record's business key, else `line N`. */
  key: string;
  /** Line of the NDJSON file (imports only). */
  line?: number;
  /** The job id the record would get. */
  jobId?: string;
  outcome: PlanOutcome;
  /** One line for operators. */
  summary: string;
  /** The writes, in the order the real run sends them. */
  calls: PlannedCall[];
  /** The reads the preview made (the real run makes them as well). */
  reads: PlannedRead[];
  /** Why it would fail: the same code and message the real job fails with. */
  error?: { code: string; message: string; hint?: string };
  /**
   * A record that fails only for naming what the service lacks: what a worker's job of it would wait for instead
   * (`product MUG-ORANGE`, `facility North / B-07`; src/queue/wait/). A one-shot run (what the dry run plans) fails it.
   */
  waitsFor?: string[];
  /** Kind-specific facts: an order's steps left, a count's lines (on hand, counted, variance), a BOM's entry. */
  details?: Record<string, unknown>;
}

/**
 * What a kind's preview answers (a record that would fail after some writes says both); the driver adds stream, key,
 * line, job id and reads.
 */
export type PreviewResult = Pick<RecordPlan, 'outcome' | 'summary' | 'calls'> & Pick<RecordPlan, 'details' | 'error' | 'waitsFor'>;
