import { bomKind } from './boms/bom-kind.js';
import { orderKind } from './orders/order-kind.js';
import { stockCountKind } from './stock/stock-count-kind.js';

/**
 * The kinds of job, one per stream of the feed: the one list the composition root (src/app, src/bin) hands to
 * config, the engine and every command. A new kind is a folder jobs/<kind>/ with its declaration, and its line here.
 */
export const streamDefs = [orderKind, stockCountKind, bomKind] as const;

/** The program's stream names (for tests and tools; the engine takes the list itself and knows no names). */
export type StreamName = (typeof streamDefs)[number]['stream'];
/** The stream names, in the list's order. */
export const STREAMS = streamDefs.map((d) => d.stream) as readonly string[] as readonly [StreamName, ...StreamName[]];
