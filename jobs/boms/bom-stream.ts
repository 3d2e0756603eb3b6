import { z } from 'zod';
import { productId } from '../record-fields.js';
import type { StreamDef } from '../../src/records/stream-def.js';
import { bomReferences } from './bom-references.js';

export const bomRecordSchema = z.object({
  productId,
  components: z
    .array(z.object({ productId, quantity: z.number({ error: 'must be a number' }).positive('must be greater than 0') }), {
      error: 'is required',
    })
    .min(1, 'must have at least one component'),
});

export type BomRecord = z.infer<typeof bomRecordSchema>;

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
