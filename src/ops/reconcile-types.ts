import type { StreamName } from '../../jobs/streams.js';

/** What differs between the service and what the program recorded as synced. */
export type DriftKind =
  | 'order-missing'
  | 'order-not-completed'
  | 'order-origin'
  | 'order-lines'
  | 'shipment-missing'
  | 'shipment-not-shipped'
  | 'shipment-extra'
  | 'stock-differs'
  | 'bom-missing'
  | 'bom-differs'
  | 'bom-extra-entries';

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
  /** How many synced things were compared. */
  checked: { orders: number; shipments: number; stockPairs: number; boms: number };
  drifts: Drift[];
  unchecked: Unchecked[];
  /** Requests spent on the service, by class. */
  calls: { get: number; collection: number };
  ms: number;
}
