import type { RedisConnection as Redis } from '../../src/redis/connection.js';

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

// The life starts at the first write (ARGV[1] = '1') and is never left unset: a hash recreated by a later write
// (its key expired under a running job) gets one too.
const HSET_WITH_TTL = `redis.call('HSET', KEYS[1], unpack(ARGV, 3))
if ARGV[1] == '1' or redis.call('TTL', KEYS[1]) < 0 then return redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return 0`;

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
  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    /** Seconds a progress hash lives after its first write (the service stays the truth). */
    private readonly ttlSeconds: number,
  ) {}

  async load(): Promise<OrderProgress> {
    return parseProgress(await this.redis.hgetall(this.key));
  }

  /**
   * Writes the given fields in one round trip; `pending: undefined` clears the intent marker. `startTtl`
   * (the first write of an order) starts the hash's life; any write gives a hash without one its life, so no
   * progress outlives it (docs/operations.md, "Redis sizing").
   */
  async save(fields: Partial<OrderProgress> & { pending?: Pending | undefined }, startTtl = false): Promise<void> {
    const flat: Record<string, string> = { updatedAt: new Date().toISOString() };
    for (const [k, v] of Object.entries(fields)) flat[k] = v ?? '';
    // HSET and EXPIRE as one command: each command is a socket write, which is what a busy worker pays for.
    await this.redis.eval(HSET_WITH_TTL, 1, this.key, startTtl ? '1' : '0', this.ttlSeconds, ...Object.entries(flat).flat());
  }
}
