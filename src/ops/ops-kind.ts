import type { AnyJobKind } from '../queue/job-kind.js';
import type { FindRule } from './find-rule.js';
import type { ReconcileRule } from './reconcile-rule.js';
import type { RepairRule } from './repair-rule.js';

/**
 * A kind of job as the operator's tools see it: its stream, its job, and what `find` and `reconcile` read of it.
 * The list of them (jobs/streams.ts) is handed to the engine by the composition root.
 */
export interface OpsKind extends AnyJobKind {
  /** What `find` shows of a key's entities and progress. None: only its jobs. */
  find?: FindRule;
  /** How `reconcile` compares what it synced with the service. None: not reconciled. */
  reconcile?: ReconcileRule;
  /** How `reconcile --repair` repairs the drifts its reconcile rule finds. None: every drift is left to a person. */
  repair?: RepairRule;
}
