import { bomKind } from './boms/bom-kind.js';
import { orderKind } from './orders/order-kind.js';
import { stockCountKind } from './stock/stock-count-kind.js';

/**
 * The kinds of job, one per stream of the feed: the one list the composition root (src/bin) hands to config, the
 * engine and every command. A new kind is a folder jobs/<kind>/ with its declaration, and its line here.
 */
export const programKinds = [orderKind, stockCountKind, bomKind] as const;

/** The program's stream names, in the list's order (for tests and tools; the engine takes the list and knows no names). */
export const STREAMS = programKinds.map((k) => k.stream) as readonly string[] as readonly [ProgramStream, ...ProgramStream[]];
/** One of the program's stream names (for tests and tools; the engine's streams are any `StreamName` of its list). */
export type ProgramStream = (typeof programKinds)[number]['stream'];
