import type { RedisConnection as Redis } from '../../src/redis/connection.js';
import { ProgressHash } from '../../src/redis/progress-hash.js';

/** Steps that surely happened, in order. */
export const STEPS = ['none', 'created', 'shipment-created', 'shipped', 'completed'] as const;
export type Step = (typeof STEPS)[number];

/** A write about to be sent: while set, its outcome is uncertain until settled by a read. */
export type Pending = 'create-order' | 'create-shipment' | 'ship' | 'complete';

/** An order's progress, kept in Redis as a hash under keys.order(orderId). */
export interface OrderProgress {
  step: Step;
  pending?: Pending;
  /** Hash of the record the progress was made for. */
  recordHash?: string;
  orderUrl?: string;
  actionUrlComplete?: string;
  shipmentUrl?: string;
}

const PENDING = new Set<string>(['create-order', 'create-shipment', 'ship', 'complete']);

export function stepIndex(step: Step): number {
  return STEPS.indexOf(step);
}

export function parseProgress(hash: Record<string, string>): OrderProgress {
  const step = (STEPS as readonly string[]).includes(hash.step ?? '') ? (hash.step as Step) : 'none';
  return {
    step,
    pending: PENDING.has(hash.pending ?? '') ? (hash.pending as Pending) : undefined,
    recordHash: hash.recordHash || undefined,
    orderUrl: hash.orderUrl || undefined,
    actionUrlComplete: hash.actionUrlComplete || undefined,
    shipmentUrl: hash.shipmentUrl || undefined,
  };
}

/** Reads and writes one order's progress; each write is one round trip. */
export class ProgressStore {
  private readonly hash: ProgressHash;

  constructor(
    redis: Redis,
    key: string,
    /** Seconds a progress hash lives after its first write (the service stays the truth). */
    private readonly ttlSeconds: number,
  ) {
    this.hash = new ProgressHash(redis, key);
  }

  async load(): Promise<OrderProgress> {
    return parseProgress(await this.hash.read());
  }

  /**
   * Writes the given fields in one round trip; `pending: undefined` clears the intent marker. `startTtl`
   * (the first write of an order) starts the hash's life; any write gives a hash without one its life, so no
   * progress outlives it (docs/redis.md, "Redis sizing").
   */
  async save(fields: Partial<OrderProgress> & { pending?: Pending | undefined }, startTtl = false): Promise<void> {
    const flat: Record<string, string> = { updatedAt: new Date().toISOString() };
    for (const [k, v] of Object.entries(fields)) flat[k] = v ?? '';
    await this.hash.write(flat, { seconds: this.ttlSeconds, starts: startTtl });
  }
}
