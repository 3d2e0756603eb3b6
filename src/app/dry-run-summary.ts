import type { PlanOutcome, RecordPlan } from '../queue/record-plan.js';

/** The sums of one stream's plans. */
export interface StreamPlanSums {
  records: number;
  /** Records per outcome. */
  outcomes: Record<PlanOutcome, number>;
  /** Writes (POSTs) the real run would send. */
  posts: number;
  /** Reads (GETs) the previews made, which the real run makes too (catalog reads aside). */
  gets: number;
}

export interface DryRunSummary {
  perStream: Record<string, StreamPlanSums>;
  records: number;
  posts: number;
  gets: number;
  /** Records whose job would fail (bad records among them). */
  fails: number;
}

const noOutcomes = (): Record<PlanOutcome, number> => ({ writes: 0, unchanged: 0, skipped: 0, fails: 0, duplicate: 0 });

/** Sums the plans per stream and in all. */
export function summarizePlans(records: RecordPlan[]): DryRunSummary {
  const perStream: Record<string, StreamPlanSums> = {};
  for (const r of records) {
    const s = (perStream[r.stream] ??= { records: 0, outcomes: noOutcomes(), posts: 0, gets: 0 });
    s.records++;
    s.outcomes[r.outcome]++;
    s.posts += r.calls.length;
    s.gets += r.reads.length;
  }
  const all = Object.values(perStream);
  const sum = (pick: (s: StreamPlanSums) => number) => all.reduce((n, s) => n + pick(s), 0);
  return { perStream, records: records.length, posts: sum((s) => s.posts), gets: sum((s) => s.gets), fails: sum((s) => s.outcomes.fails) };
}
