import type { StreamDef } from '../streams.js';

/** The `boms` stream (upstream-feed.md): one product's bill of materials per record, named by its productId. */
export const bomStream = { stream: 'boms', keyField: 'productId', scheduler: 'poll-boms' } as const satisfies StreamDef;
