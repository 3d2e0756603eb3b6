/**
 * This execution's lease on its record is no longer current: the process was paused longer than the lock's life and
 * the job was taken again (by BullMQ's stalled check, here or in another process), or the lease expired. Thrown
 * before a write leaves (the fence, src/client/layers/fence-layer.ts): the execution stops without writing, and the
 * job runner neither completes nor fails the job, which belongs to the newer execution.
 */
export class LeaseLostError extends Error {
  readonly code = 'LEASE_LOST';
  constructor(
    readonly key: string,
    /** The write that was not sent (a call of src/client/service-calls.ts), when a write was stopped. */
    readonly call?: string,
  ) {
    super(`lease on ${key} lost${call ? `; ${call} not sent` : ''}: another execution holds the job`);
    this.name = 'LeaseLostError';
  }
}

/** Whether an error is (or wraps) a lost lease. */
export function isLeaseLost(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) if (e instanceof LeaseLostError) return true;
  return false;
}
