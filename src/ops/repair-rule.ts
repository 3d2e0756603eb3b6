import type { Drift } from './reconcile-types.js';

/** One drift and what its repair writes, for people ("complete the order"). */
export interface PlannedRepair {
  drift: Drift;
  what: string;
}

/** One drift no job repairs, and why: what a person does about it (`by-hand`), or why it waits (`skipped`). */
export interface LeftDrift {
  drift: Drift;
  action: 'by-hand' | 'skipped';
  why: string;
}

/** What a kind makes of the drifts of one record: those its job repairs (one job for the record), and the rest. */
export interface RecordRepairPlan {
  repairs: PlannedRepair[];
  left: LeftDrift[];
  /** What the job needs beyond the record (job data `fromService.targets`); none for a plain resync. */
  targets?: unknown;
}

/** How a kind repairs what its reconcile rule found (`reconcile --repair`), through its own job. */
export interface RepairRule {
  /**
   * The option that lets this kind's repairs write (e.g. `include-stock`): without it they are planned in the dry
   * run and skipped, with `why`.
   */
  optIn?: { option: string; why: string };
  /** The drifts of one record (same stream and key). */
  plan(drifts: Drift[]): RecordRepairPlan;
}
