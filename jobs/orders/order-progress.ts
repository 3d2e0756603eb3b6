import type { RedisConnection as Redis } from '../../src/redis/connection.js';
import { ProgressHash } from '../../src/redis/progress-hash.js';
import { unitsHashOf, type OrderPlan, type Units } from './order-plan.js';

/** The order's status in the service as last known (absent: not created). */
export type ServiceStatus = 'created' | 'locked' | 'completed' | 'cancelled';

/** The order's action URLs as last answered (an action's URL is there only while it is allowed). */
export interface OrderActions {
  lock?: string;
  edit?: string;
  cancel?: string;
  complete?: string;
}

/**
 * A shipment of the order, by its name (shipmentIdUser: the fulfillmentId). Its hash keeps `unitsHash` only (a field
 * of a listpack hash stays within 64 bytes); its units are known when read from the service or written from a plan,
 * or are the plan's part's when the hashes match.
 */
export interface KnownPart {
  shipped: boolean;
  url: string;
  unitsHash: string;
  units?: Units;
}

/** A restocked return: the variances sent for it (their URLs, '' when the service gave none), and its day. */
export interface KnownReturn {
  urls: string[];
  day?: string;
}

/**
 * An order's progress (docs/orders.md "Progress and log in Redis"): what the service has of it as this program last
 * wrote or read it, the write about to be sent (`pending`), the newest snapshot seen and the record it was made for.
 * One form for every order, plain or not.
 */
export interface OrderProgress {
  /** Some progress exists. */
  exists: boolean;
  status?: ServiceStatus;
  orderUrl?: string;
  actions: OrderActions;
  /** itemsHashOf the order's items in the service. */
  items?: string;
  /** updatedAt of the newest snapshot seen. */
  seenAt?: string;
  /** Hash of the record the progress was last made for. */
  recordHash?: string;
  /**
   * The write about to be sent: `create-order`, `lock`, `edit`, `items`, `complete`, `cancel`, `shipment:<id>`,
   * `ship:<id>`, `return:<id>:<n>`.
   */
  pending?: string;
  /** When `pending` was recorded, ms since the epoch (a lost return is settled no sooner than lateWriteMs after it). */
  pendingAt?: number;
  parts: Map<string, KnownPart>;
  returns: Map<string, KnownReturn>;
  /** The order and its shipments were read in this attempt (never stored): a cancel is decided on such a read. */
  fresh?: boolean;
  /** Read from a hash of the released plain steps (`step`): written whole at its next save. */
  released?: boolean;
}

/** The order in one word: the plain steps' words (none, created, shipment-created, shipped, completed), or locked, cancelled. */
type Step = 'none' | 'created' | 'locked' | 'shipment-created' | 'shipped' | 'completed' | 'cancelled';

export function stepOf(p: OrderProgress): Step {
  if (!p.status) return 'none';
  if (p.status === 'completed' || p.status === 'cancelled') return p.status;
  const parts = [...p.parts.values()];
  if (parts.some((x) => !x.shipped)) return 'shipment-created';
  return parts.length ? 'shipped' : p.status;
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

/**
 * A hash of the released plain steps (step, pending, recordHash, orderUrl, actionUrlComplete, shipmentUrl), as what
 * it says in this form: the one shipment named as the plan's, its units and the items the plan's when the progress was
 * made for the same record (else a plain record reads the service first). `created` with nothing pending cannot rule
 * out a shipment made meanwhile, so it is settled as a shipment create; so is a ship without the shipment's URL.
 */
function fromSteps(hash: Record<string, string>, plan?: OrderPlan): OrderProgress {
  const step = hash.step ?? '';
  const part = plan?.parts[0];
  const id = part?.id ?? 'shipment';
  const same = !!plan && !!hash.recordHash && hash.recordHash === plan.recordHash;
  const parts = new Map<string, KnownPart>();
  if (hash.shipmentUrl && ['shipment-created', 'shipped', 'completed'].includes(step))
    parts.set(id, {
      shipped: step !== 'shipment-created',
      url: hash.shipmentUrl,
      ...(same ? { units: part!.units, unitsHash: part!.unitsHash } : { unitsHash: '' }),
    });
  const named: Record<string, string> = {
    'create-order': 'create-order',
    'create-shipment': `shipment:${id}`,
    ship: `ship:${id}`,
    complete: 'complete',
  };
  let pending = named[hash.pending ?? ''];
  if ((!pending && step === 'created') || (pending === `ship:${id}` && !hash.shipmentUrl)) pending = `shipment:${id}`;
  const status = step === 'completed' ? 'completed' : ['created', 'shipment-created', 'shipped'].includes(step) ? 'created' : undefined;
  return {
    exists: true,
    released: true,
    ...(status ? { status } : {}),
    ...(hash.orderUrl ? { orderUrl: hash.orderUrl } : {}),
    actions: hash.actionUrlComplete ? { complete: hash.actionUrlComplete } : {},
    ...(same ? { items: plan.itemsHash } : {}),
    ...(hash.recordHash ? { recordHash: hash.recordHash } : {}),
    ...(pending ? { pending } : {}),
    parts,
    returns: new Map(),
  };
}

/** A part as kept: `<1|0> <unitsHash> <url>` (the released life form's JSON with its units read too); the plan's units when they match. */
function partOf(text: string, planned: OrderPlan['parts'][number] | undefined): KnownPart {
  let part: KnownPart;
  if (text.startsWith('{')) {
    const old = json<{ shipped?: boolean; url?: string; units?: Units }>(text, {});
    part = { shipped: !!old.shipped, url: old.url ?? '', unitsHash: unitsHashOf(old.units ?? {}), units: old.units ?? {} };
  } else {
    const [shipped, unitsHash = '', ...url] = text.split(' ');
    part = { shipped: shipped === '1', url: url.join(' '), unitsHash };
  }
  return planned && planned.unitsHash === part.unitsHash ? { ...part, units: planned.units } : part;
}

/** A return as kept: `<day|-> <url|-> ...` (the released life form's JSON read too). */
function returnOf(text: string): KnownReturn {
  if (text.startsWith('{')) return json(text, { urls: [] });
  const [day, ...urls] = text.split(' ');
  return { urls: urls.map((u) => (u === '-' ? '' : u)), ...(day && day !== '-' ? { day } : {}) };
}

/** An order's progress from its hash: this form (`life=1`), or the released plain steps read as it (with the plan's names). */
export function parseProgress(hash: Record<string, string>, plan?: OrderPlan): OrderProgress {
  if (hash.life !== '1' && (hash.step || hash.pending || hash.orderUrl)) return fromSteps(hash, plan);
  const parts = new Map<string, KnownPart>();
  const returns = new Map<string, KnownReturn>();
  const planned = (id: string) => plan?.parts.find((x) => x.id === id);
  // By name: a hash's fields come back in no promised order, and what is shown of them should not move.
  for (const [k, v] of Object.entries(hash).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const id = k.slice(k.indexOf(':') + 1);
    if (k.startsWith(PART) && v) parts.set(id, partOf(v, planned(id)));
    if (k.startsWith(RETURN) && v) returns.set(id, returnOf(v));
  }
  const some = (k: string) => hash[k] || undefined;
  return {
    exists: Object.keys(hash).length > 0,
    ...(STATUSES.has(hash.status ?? '') ? { status: hash.status as ServiceStatus } : {}),
    ...(some('orderUrl') ? { orderUrl: hash.orderUrl } : {}),
    actions: json(hash.actions, {}),
    ...(some('items') ? { items: hash.items } : {}),
    ...(some('seenAt') ? { seenAt: hash.seenAt } : {}),
    ...(some('recordHash') ? { recordHash: hash.recordHash } : {}),
    ...(some('pending') ? { pending: hash.pending } : {}),
    ...(some('pending') && some('pendingAt') ? { pendingAt: Number(hash.pendingAt) } : {}),
    parts,
    returns,
  };
}

/** What one save writes: any of the scalar fields, parts and returns by name (null removes a part). */
export interface ProgressWrite {
  status?: ServiceStatus | '';
  orderUrl?: string;
  actions?: OrderActions;
  items?: string;
  seenAt?: string;
  recordHash?: string;
  pending?: string;
  parts?: Map<string, KnownPart | null>;
  returns?: Map<string, KnownReturn>;
  /** The order and its shipments were just read (kept in memory only). */
  fresh?: boolean;
}

/** The progress after a write of it (what ProgressStore.save stores, in memory). */
export function applyWrite(p: OrderProgress, w: ProgressWrite): OrderProgress {
  const out: OrderProgress = { ...p, exists: true };
  delete out.released;
  if (w.status !== undefined) {
    if (w.status) out.status = w.status;
    else delete out.status;
  }
  for (const k of ['orderUrl', 'items', 'seenAt', 'recordHash', 'fresh'] as const)
    if (w[k] !== undefined) Object.assign(out, { [k]: w[k] });
  if (w.actions) out.actions = w.actions;
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

/** All that a progress knows, as one write (a hash of the released form is written so once, whole). */
function whole(p: OrderProgress): ProgressWrite {
  const { orderUrl, items, seenAt, recordHash } = p;
  return {
    status: p.status ?? '',
    pending: p.pending ?? '',
    actions: p.actions,
    parts: p.parts,
    returns: p.returns,
    orderUrl,
    items,
    seenAt,
    recordHash,
  };
}

/**
 * One order's progress, in memory and in its hash; each save is one round trip. Beside what it knows, each save writes
 * `step` (stepOf) and `shipmentUrl` (its shipment's URL when it has one): the order in a person's words. Every value
 * is kept short (parts and returns as text, action URLs only where not the default) so that the hash stays a listpack.
 */
export class ProgressStore {
  private readonly hash: ProgressHash;

  constructor(
    redis: Redis,
    key: string,
    /** Seconds a progress hash lives after its first write (the service stays the truth). */
    private readonly ttlSeconds: number,
    /** What is known, as last saved. */
    public p: OrderProgress = parseProgress({}),
  ) {
    this.hash = new ProgressHash(redis, key);
  }

  /**
   * Records `w`. `startTtl` (the order's first write, its create's intent) starts the hash's life; any write gives a
   * hash without one its life, so no progress outlives it (docs/redis.md, "Redis sizing").
   */
  async save(w: ProgressWrite, startTtl = false): Promise<void> {
    const all = this.p.released ? { ...whole(this.p), ...w } : w;
    const was = this.p.pending;
    this.p = applyWrite(this.p, w);
    const parts = [...this.p.parts.values()];
    const flat: Record<string, string> = { life: '1', updatedAt: new Date().toISOString(), step: stepOf(this.p) };
    flat.shipmentUrl = parts.length === 1 ? parts[0]!.url : '';
    for (const k of ['status', 'orderUrl', 'items', 'seenAt', 'recordHash', 'pending'] as const) if (k in all) flat[k] = all[k] ?? '';
    if (this.p.pending !== was) {
      this.p.pendingAt = this.p.pending ? Date.now() : undefined;
      flat.pendingAt = String(this.p.pendingAt ?? '');
    }
    // Only the action URLs that are not `{orderUrl}/{action}`, which is what an action without one is sent to.
    const own = Object.entries(all.actions ?? {}).filter(([name, url]) => url !== `${this.p.orderUrl}/${name}`);
    if (all.actions) flat.actions = own.length ? JSON.stringify(Object.fromEntries(own)) : '';
    for (const [id, x] of all.parts ?? []) flat[PART + id] = x ? `${x.shipped ? 1 : 0} ${x.unitsHash} ${x.url}` : '';
    for (const [id, r] of all.returns ?? []) flat[RETURN + id] = [r.day ?? '-', ...r.urls.map((u) => u || '-')].join(' ');
    await this.hash.write(flat, { seconds: this.ttlSeconds, starts: startTtl });
  }
}

/** Whether a naive date-time is older than another (to the millisecond; `2026-11-20T15:40:00` equals `...:00.000`). */
export function isOlder(updatedAt: string, than: string): boolean {
  const norm = (t: string) => (t.length === 19 ? `${t}.000` : t.padEnd(23, '0'));
  return norm(updatedAt) < norm(than);
}
