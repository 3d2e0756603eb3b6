import type { StreamName } from '../records/stream-name.js';

/** What differs between the service and what the program recorded as synced. */
export type DriftKind = string;

/** One difference, naming the record and the field. */
export interface Drift {
  stream: StreamName;
  kind: DriftKind;
  /** The record's business key: orderId, countId, productId. */
  key: string;
  field: string;
  /** What the service has. */
  service: string;
  /** What the program synced. */
  synced: string;
  /** Stock only: service minus synced. */
  difference?: number;
  /** The entity concerned, when there is one. */
  url?: string;
  /** The job that synced the record. */
  jobId?: string;
  /** Anything else the operator needs (e.g. the shipments taken into account). */
  detail?: string;
  /** What a repair of it needs beyond the record, as its kind reads it (e.g. the on-hand to set back). */
  target?: Record<string, unknown>;
}

/** A synced record reconcile could not compare, and why (e.g. its product is no longer in the catalog). */
export interface Unchecked {
  stream: StreamName;
  key: string;
  reason: string;
}

export interface ReconcileReport {
  prefix: string;
  /** When it ran (ISO). */
  at: string;
  streams: StreamName[];
  /** Nothing drifted. */
  ok: boolean;
  /** How many synced things were compared, by each kind's counters (orders, shipments, stockPairs, boms, ...). */
  checked: Record<string, number>;
  /** The same, for people: one phrase per kind ("3 orders, 3 orders' shipments"). */
  compared: string[];
  drifts: Drift[];
  unchecked: Unchecked[];
  /** Requests spent on the service, by class. */
  calls: { get: number; collection: number };
  ms: number;
}

/** What a report compared, as one phrase ("2 orders, ... and 0 BOMs"), from each kind's rule. */
export function comparedText(r: Pick<ReconcileReport, 'compared'>): string {
  const parts = r.compared ?? [];
  return parts.length <= 1 ? (parts[0] ?? 'nothing') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}
