/**
 * An order's progress as the released two-machine version wrote it (before issue 46), for the tests of an upgrade: its
 * plain steps (`step`, `pending`, `recordHash`, `orderUrl`, `actionUrlComplete`, `shipmentUrl`), each save one hash
 * write with `updatedAt`, the first starting the hash's life; and its life form (`life=1`, parts and returns as JSON).
 */
import { ProgressHash } from '../../src/redis/progress-hash.js';
import type { RedisConnection } from '../../src/redis/connection.js';

/** The released plain steps' fields. */
export interface ReleasedSteps {
  step?: 'none' | 'created' | 'shipment-created' | 'shipped' | 'completed';
  pending?: 'create-order' | 'create-shipment' | 'ship' | 'complete';
  recordHash?: string;
  orderUrl?: string;
  actionUrlComplete?: string;
  shipmentUrl?: string;
}

/** The released version's ProgressStore: writes the given fields, `undefined` as '' (a cleared field). */
export class ReleasedProgressStore {
  private readonly hash: ProgressHash;

  constructor(
    redis: RedisConnection,
    key: string,
    private readonly ttlSeconds: number,
  ) {
    this.hash = new ProgressHash(redis, key);
  }

  async save(fields: ReleasedSteps & { pending?: ReleasedSteps['pending'] | undefined }, startTtl = false): Promise<void> {
    const flat: Record<string, string> = { updatedAt: new Date().toISOString() };
    for (const [k, v] of Object.entries(fields)) flat[k] = v ?? '';
    await this.hash.write(flat, { seconds: this.ttlSeconds, starts: startTtl });
  }
}

/** A part of the released life form: the shipment's URL, whether shipped, its units per `productUrl@facilityUrl`. */
export interface ReleasedPart {
  shipped: boolean;
  url: string;
  units: Record<string, number>;
}

/** The released version's LifeStore write: `life=1`, the scalars as given, actions and parts as JSON. */
export async function saveReleasedLife(
  redis: RedisConnection,
  key: string,
  fields: { status?: string; orderUrl?: string; items?: string; seenAt?: string; recordHash?: string; pending?: string },
  o: { actions?: Record<string, string>; parts?: Record<string, ReleasedPart>; ttlSeconds?: number } = {},
): Promise<void> {
  const flat: Record<string, string> = { life: '1', updatedAt: new Date().toISOString() };
  for (const [k, v] of Object.entries(fields)) flat[k] = v ?? '';
  if (o.actions) flat.actions = JSON.stringify(o.actions);
  for (const [id, part] of Object.entries(o.parts ?? {})) flat[`part:${id}`] = JSON.stringify(part);
  await new ProgressHash(redis, key).write(flat, { seconds: o.ttlSeconds ?? 3600, starts: false });
}
