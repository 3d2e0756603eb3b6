import type { StreamDef } from '../streams.js';

/** The `orders` stream (upstream-feed.md): one fulfilled sale per record, named by its orderId. */
export const orderStream = { stream: 'orders', keyField: 'orderId', scheduler: 'poll-orders' } as const satisfies StreamDef;
