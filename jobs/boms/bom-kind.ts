import type { OpsKind } from '../../src/ops/ops-kind.js';
import { bomJob } from './bom-sync.js';
import { bomReconcile } from './reconcile-boms.js';

/** The bills of materials as one kind: its stream, its job and how `reconcile` compares them (the line of jobs/streams.ts). */
export const bomKind: OpsKind = { ...bomJob, reconcile: bomReconcile };
