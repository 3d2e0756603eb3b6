import type { AnyJobKind } from '../src/queue/worker-pool.js';
import { bomJob } from './boms/bom-sync.js';
import { orderJob } from './orders/order-sync.js';
import { stockCountJob } from './stock/stock-count-sync.js';

/** Every kind of job the program runs, one per stream. */
export const jobKinds: AnyJobKind[] = [orderJob, stockCountJob, bomJob];
