import { bomKind } from './boms/bom-kind.js';
import type { bomStream } from './boms/bom-stream.js';
import { orderKind } from './orders/order-kind.js';
import type { orderStream } from './orders/order-stream.js';
import { stockCountKind } from './stock/stock-count-kind.js';
import type { stockCountStream } from './stock/stock-count-stream.js';

/**
 * The kinds of job, one per stream of the feed: the one list the composition root (src/app, src/bin) hands to the
 * engine. A new kind is a folder jobs/<kind>/ and its line here.
 */
export const streamDefs = [orderKind, stockCountKind, bomKind] as const;

/** The program's stream names (for tests and tools; the engine takes the list itself and knows no names). */
export type StreamName = (typeof orderStream | typeof stockCountStream | typeof bomStream)['stream'];
/** The stream names, in the list's order. */
export const STREAMS = streamDefs.map((d) => d.stream) as readonly string[] as readonly [StreamName, ...StreamName[]];
