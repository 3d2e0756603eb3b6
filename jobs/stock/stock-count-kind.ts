import type { OpsKind } from '../../src/ops/ops-kind.js';
import { countFind } from './count-find.js';
import { stockCountJob } from './stock-count-sync.js';
import { stockReconcile } from './reconcile-stock.js';
import { stockRepair } from './repair-stock-rule.js';

/**
 * The stock counts as one kind: its stream, its job and what `find` shows of them and how `reconcile` compares them
 * (the line of jobs/streams.ts).
 */
export const stockCountKind: OpsKind = { ...stockCountJob, find: countFind, reconcile: stockReconcile, repair: stockRepair };
