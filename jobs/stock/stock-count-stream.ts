import type { StreamDef } from '../streams.js';

/** The `stock-counts` stream (upstream-feed.md): one count of a location per record, named by its countId. */
export const stockCountStream = { stream: 'stock-counts', keyField: 'countId', scheduler: 'stock-sync' } as const satisfies StreamDef;
