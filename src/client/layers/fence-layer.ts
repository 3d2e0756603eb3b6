import { freezeAt } from './freeze-hook.js';
import { withContext, type Layer } from './call-layers.js';

/** What the fence layer asks of an execution's lease (src/queue/lease/job-lease.ts). */
export interface WriteFence {
  /** One round trip: throws LeaseLostError unless the lease is this execution's; records the write's intent. */
  fence(call: string): Promise<void>;
  /** The fence again when the last one is older than its bound (right before the request leaves). */
  refence(call: string): Promise<void>;
}

/**
 * The fence before every write of one execution (docs/holds.md "Fenced writes"): a POST leaves only after the lease was
 * found this execution's and the write's intent recorded, in one Redis round trip; a fence older than its bound (a
 * third of the lock's life: the wait for budget, a held call) is made again as the request leaves (http-send.ts).
 * Reads pass as they come.
 */
export function fenceLayer(lease: WriteFence): Layer {
  return (next) => async (req) => {
    if (req.method !== 'POST') return next(req);
    freezeAt('before-check', req.call);
    await lease.fence(req.call);
    freezeAt('after-check', req.call);
    const answer = await next(withContext(req, { beforeSend: [() => lease.refence(req.call)] }));
    freezeAt('after-answer', req.call);
    return answer;
  };
}
