import type { OpsKind } from '../../src/ops/ops-kind.js';
import { orderFind } from './order-find.js';
import { orderJob } from './order-sync.js';
import { orderReconcile } from './reconcile-orders.js';
import { orderRepair } from './repair-orders.js';

/**
 * The orders as one kind: its stream, its job and what `find` shows of them and how `reconcile` compares them
 * (the line of jobs/streams.ts).
 */
export const orderKind: OpsKind = { ...orderJob, find: orderFind, reconcile: orderReconcile, repair: orderRepair };
