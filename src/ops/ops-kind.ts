import type { FeedPart } from '../feed/feed-kind.js';
import type { JobPart } from '../queue/runner-kind.js';
import type { RecordKind } from '../records/record-kind.js';
import type { FindRule } from './find-rule.js';
import type { ReconcileContext, ReconcileRule } from './reconcile-rule.js';
import type { RepairRule } from './repair-rule.js';
import type { StockEffect } from './stock-effect.js';

/** What a kind says for its operators (its `ops`, OpsKind's part): what find, reconcile and repair read. */
export interface OpsPart {
  /** What `find` shows of a key's entities and progress. None: only its jobs. */
  find?: FindRule;
  /** How `reconcile` compares what it synced with the service. None: not reconciled. */
  reconcile?: ReconcileRule;
  /** How `reconcile --repair` repairs the drifts its reconcile rule finds. None: every drift is left to a person. */
  repair?: RepairRule;
  /** The stock its synced records moved (a shipment, a write-off), for the stock reconcile. None: it moves none. */
  stockEffects?: (ctx: ReconcileContext) => Promise<StockEffect[]>;
}

/** A kind as the operator's tools see it (src/ops' slice of it): its records, its pulls' lag, its job, its rules. */
export interface OpsKind<R = any> extends RecordKind<R> {
  feed: Pick<FeedPart, 'lag'>;
  job: Pick<JobPart<R>, 'failures'>;
  ops?: OpsPart;
}
