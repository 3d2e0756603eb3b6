import type { OpsKind } from '../../src/ops/ops-kind.js';
import { bomFind } from './bom-find.js';
import { bomJob } from './bom-sync.js';
import { bomReconcile } from './reconcile-boms.js';
import { bomRepair } from './repair-boms.js';

/**
 * The bills of materials as one kind: its stream, its job and what `find` shows of them and how `reconcile` compares them
 * (the line of jobs/streams.ts).
 */
export const bomKind: OpsKind = { ...bomJob, find: bomFind, reconcile: bomReconcile, repair: bomRepair };
