/**
 * What the charts read of GET /api/flow (src/ops/flow-metrics.ts FlowSeries). Types only: the server checks
 * that what it sends fits this shape (ops-routes.ts), the browser code reads it.
 */

/** One minute: its start (epoch ms) and its value, null where nothing was sampled. */
export type FlowPoint = [t: number, value: number | null];

export interface FlowView {
  /** Epoch ms of the answer. */
  now: number;
  /**
   * Per stream: records synced and failed each minute (failures as they happened), the jobs failed now (as `status`
   * counts them: not those retried to success or superseded since), its lag each minute and its feed now.
   */
  streams: Record<
    string,
    {
      synced: FlowPoint[];
      failed: FlowPoint[];
      failedNow: number;
      lag: FlowPoint[];
      feed: { behindSeconds: number | null; lastPollAt: string | null };
    }
  >;
  /**
   * Per request class, in the one unit its budget is set in (a minute, or an hour for collection): the budget, the
   * requests each minute (for an hourly budget: in the hour up to that minute), and the last hour's counters, which the
   * overview's table shows too.
   */
  budget: Record<
    string,
    { unit: 'min' | 'h'; limit: number | null; points: FlowPoint[]; lastHour: { requests: number; waitedMs: number; holds: number } | null }
  >;
  /** ALERT_LAG_SECONDS: the lag over which `worker` alerts, or null. */
  lagLimitSeconds: number | null;
}
