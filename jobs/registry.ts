import type { AnyJobKind } from '../src/queue/job-kind.js';
import { bomJob } from './boms/bom-sync.js';
import { orderJob } from './orders/order-sync.js';
import { stockCountJob } from './stock/stock-count-sync.js';
import type { StreamName } from './streams.js';

/** The kind of job of each stream (jobs/streams.ts): the compiler asks for one per stream. */
const byStream: Record<StreamName, AnyJobKind> = {
  orders: orderJob,
  'stock-counts': stockCountJob,
  boms: bomJob,
};

/** Every kind of job the program runs, one per stream, in the streams' order. */
export const jobKinds: AnyJobKind[] = Object.values(byStream);
