/**
 * What the charts read of GET /api/flow (src/ops/flow-metrics.ts FlowSeries). Types only: the server checks
 * that what it sends fits this shape (ops-routes.ts), the browser code reads it.
 */

/** One minute: its start (epoch ms) and its value, null where nothing was sampled. */
export type FlowPoint = [t: number, value: number | null];

export interface FlowView {
  /** Epoch ms of the answer. */
  now: number;
  streams: Record<string, { synced: FlowPoint[]; failed: FlowPoint[]; lag: FlowPoint[] }>;
  budget: Record<string, { limitPerMinute: number | null; perMinute: FlowPoint[] }>;
  /** ALERT_LAG_SECONDS: the lag over which `worker` alerts, or null. */
  lagLimitSeconds: number | null;
}
