import type { StreamDef } from '../../src/records/stream-def.js';
import { bomReferences } from './bom-references.js';
import { bomRecordSchema } from './bom-record.js';

/** The `boms` stream (upstream-feed.md): one product's bill of materials per record, named by its productId. */
export const bomStream = {
  stream: 'boms',
  keyField: 'productId',
  scheduler: 'poll-boms',
  schema: bomRecordSchema,
  references: bomReferences,
  pull: (schedule) => ({ every: schedule.bomPollSeconds }),
  lag: 'polled',
} as const satisfies StreamDef;
