import type { RecordPlan } from '../queue/record-plan.js';
import type { JobResult } from '../queue/job-context.js';
import type { StreamName } from '../records/stream-name.js';
import type { ReconcileReport } from './reconcile-types.js';
import type { RepairItem } from './repair-plan.js';

/** How one job of a resync or repair ended. */
export interface JobEnd {
  stream: StreamName;
  jobId: string;
  /** completed, failed; or waiting/delayed when its stream's breaker paused it (left for `resume`). */
  state: string;
  outcome?: JobResult['outcome'];
  summary?: string;
  /** The failure, `[CODE] message`. */
  error?: string;
}

/** What `reconcile --repair` did (or, with `dryRun`, would do). */
export interface RepairReport {
  run: string;
  dryRun: boolean;
  /** The reconcile the repairs were planned from. */
  before: ReconcileReport;
  items: RepairItem[];
  /** The dry run: each repair job's plan (its reads and every call it would make). */
  plans: RecordPlan[];
  /** The repair jobs as they ended. */
  jobs: JobEnd[];
  /** The reconcile after the repairs (not in a dry run). */
  after?: ReconcileReport;
  /** Every drift repaired (or, in a dry run, every drift has a repair that would go through): nothing is left. */
  ok: boolean;
}

/** Where the last repair report is kept, for the dashboard's reconcile page. */
export const lastRepairKey = (prefix: string) => `${prefix}:repair:last`;

/** Runs `reconcile --repair` for the dashboard (built by the command that has the service's configuration). */
export type Repairer = (o: { only?: { stream: StreamName; key: string }; optIns: ReadonlySet<string> }) => Promise<RepairReport>;
