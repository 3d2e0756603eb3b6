import { z } from 'zod';
import { PermanentJobError } from '../../../src/queue/job-errors.js';
import type { JobContext, JobResult } from '../../../src/queue/job-context.js';
import { defineKind } from '../../../src/kinds/kind.js';

/** A test-only fourth kind: a shelf label naming one product (its record, key, schedule, job and what `find` shows). */
const shelfLabelSchema = z.object({ labelId: z.string().min(1), productId: z.string().min(1), text: z.string() });
type ShelfLabel = z.infer<typeof shelfLabelSchema>;

async function processLabel(record: ShelfLabel, ctx: JobContext): Promise<JobResult> {
  const product = await ctx.catalog.product(record.productId);
  if (!product)
    throw new PermanentJobError(
      'CONFLICT',
      `label ${record.labelId}: no product ${record.productId}`,
      'Add the product, then retry the job.',
    );
  return {
    outcome: 'synced',
    summary: `label ${record.labelId} checked against ${record.productId}`,
    details: { productUrl: product.productUrl },
  };
}

export const shelfLabelKind = defineKind({
  stream: 'shelf-labels',
  record: {
    keyField: 'labelId',
    schema: shelfLabelSchema,
    references: (record: ShelfLabel) => ({ products: [record.productId], facilities: [] }),
  },
  feed: { scheduler: 'poll-shelf-labels', pull: () => ({ every: 60 }), lag: 'polled' },
  job: { process: processLabel },
  ops: {
    find: {
      entityKinds: ['label product'],
      entities: (d) => (typeof d.productUrl === 'string' ? [{ kind: 'label product', url: d.productUrl }] : []),
    },
  },
});
