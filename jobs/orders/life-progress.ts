import type { RedisConnection as Redis } from '../../src/redis/connection.js';
import { ProgressHash } from '../../src/redis/progress-hash.js';
import type { Units } from './life-plan.js';

/** The order's status in the service as last known (absent: not created). */
export type LifeStatus = 'created' | 'locked' | 'completed' | 'cancelled';

/** The order's action URLs as last answered (an action's URL is there only while it is allowed). */
export interface LifeActions {
  lock?: string;
  edit?: string;
  cancel?: string;
  complete?: string;
}

/** A shipment of the order, by its name (shipmentIdUser: the fulfillmentId). */
export interface KnownPart {
  shipped: boolean;
  url: string;
  units: Units;
}

/** A restocked return: the variances sent for it (their URLs, '' when the service gave none), and its day. */
export interface KnownReturn {
  urls: string[];
  day?: string;
}

/**
 * An order's progress when it lives (docs/orders.md "The order's life"): what the service has of it as this program
 * last wrote or read it, the write about to be sent (`pending`), and the newest snapshot seen. Kept in the order's
 * progress hash beside the plain order's fields, marked `life=1`.
 */
export interface LifeProgress {
  /** Some progress exists (of either form). */
  exists: boolean;
  /** The progress is of this form (a plain order's progress is read from the service before acting on it). */
  life: boolean;
  status?: LifeStatus;
  orderUrl?: string;
  actions: LifeActions;
  /** itemsHashOf the order's items in the service. */
  items?: string;
  /** updatedAt of the newest snapshot seen. */
  seenAt?: string;
  /** Hash of the last snapshot applied whole. */
  recordHash?: string;
  /**
   * The write about to be sent: `create-order`, `lock`, `edit`, `items`, `complete`, `cancel`, `ship:<id>`,
   * `shipment:<id>`, `return:<id>:<n>`.
   */
  pending?: string;
  parts: Map<string, KnownPart>;
  returns: Map<string, KnownReturn>;
}

const STATUSES = new Set<string>(['created', 'locked', 'completed', 'cancelled']);
const PART = 'part:';
const RETURN = 'return:';

function json<T>(text: string | undefined, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export function parseLife(hash: Record<string, string>): LifeProgress {
  const parts = new Map<string, KnownPart>();
  const returns = new Map<string, KnownReturn>();
  // By name: a hash's fields come back in no promised order, and what is shown of them should not move.
  for (const [k, v] of Object.entries(hash).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (k.startsWith(PART) && v) parts.set(k.slice(PART.length), json(v, { shipped: false, url: '', units: {} }));
    if (k.startsWith(RETURN) && v) returns.set(k.slice(RETURN.length), json(v, { urls: [] }));
  }
  const some = (k: string) => hash[k] || undefined;
  return {
    exists: Object.keys(hash).length > 0,
    life: hash.life === '1',
    ...(STATUSES.has(hash.status ?? '') ? { status: hash.status as LifeStatus } : {}),
    ...(some('orderUrl') ? { orderUrl: hash.orderUrl } : {}),
    actions: json(hash.actions, {}),
    ...(some('items') ? { items: hash.items } : {}),
    ...(some('seenAt') ? { seenAt: hash.seenAt } : {}),
    ...(some('recordHash') ? { recordHash: hash.recordHash } : {}),
    ...(some('pending') ? { pending: hash.pending } : {}),
    parts,
    returns,
  };
}

/** What one save writes: any of the scalar fields, parts and returns by name (null removes a part). */
export interface LifeWrite {
  status?: LifeStatus | '';
  orderUrl?: string;
  actions?: LifeActions;
  items?: string;
  seenAt?: string;
  recordHash?: string;
  pending?: string;
  parts?: Map<string, KnownPart | null>;
  returns?: Map<string, KnownReturn>;
}

/** The progress after a write of it (what LifeStore.save stores, in memory). */
export function applyWrite(p: LifeProgress, w: LifeWrite): LifeProgress {
  const out: LifeProgress = { ...p, exists: true, life: true };
  if (w.status !== undefined) {
    if (w.status) out.status = w.status;
    else delete out.status;
  }
  if (w.orderUrl !== undefined) out.orderUrl = w.orderUrl;
  if (w.actions) out.actions = w.actions;
  if (w.items !== undefined) out.items = w.items;
  if (w.seenAt !== undefined) out.seenAt = w.seenAt;
  if (w.recordHash !== undefined) out.recordHash = w.recordHash;
  if (w.pending !== undefined) {
    if (w.pending) out.pending = w.pending;
    else delete out.pending;
  }
  if (w.parts) {
    out.parts = new Map(p.parts);
    for (const [k, v] of w.parts) v ? out.parts.set(k, v) : out.parts.delete(k);
  }
  if (w.returns) out.returns = new Map([...p.returns, ...w.returns]);
  return out;
}

/** Reads and writes one order's life progress; each write is one round trip. */
export class LifeStore {
  private readonly hash: ProgressHash;

  constructor(
    redis: Redis,
    key: string,
    private readonly ttlSeconds: number,
  ) {
    this.hash = new ProgressHash(redis, key);
  }

  async load(): Promise<LifeProgress> {
    return parseLife(await this.hash.read());
  }

  async save(w: LifeWrite): Promise<void> {
    const flat: Record<string, string> = { life: '1', updatedAt: new Date().toISOString() };
    for (const k of ['status', 'orderUrl', 'items', 'seenAt', 'recordHash', 'pending'] as const) if (k in w) flat[k] = w[k] ?? '';
    if (w.actions) flat.actions = JSON.stringify(w.actions);
    for (const [id, part] of w.parts ?? []) flat[PART + id] = part ? JSON.stringify(part) : '';
    for (const [id, ret] of w.returns ?? []) flat[RETURN + id] = JSON.stringify(ret);
    // A plain order's fields are left for what they were; `step` no longer speaks for the order.
    await this.hash.write(flat, { seconds: this.ttlSeconds, starts: false });
  }
}

/** The newer of two naive date-times (to the millisecond; `2026-11-20T15:40:00` equals `...:00.000`). */
export function isOlder(updatedAt: string, than: string): boolean {
  const norm = (t: string) => (t.length === 19 ? `${t}.000` : t.padEnd(23, '0'));
  return norm(updatedAt) < norm(than);
}
