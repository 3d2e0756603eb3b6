import type { Redis } from 'ioredis';
import { startDispatcher, type Dispatcher } from '../../../src/queue/dispatch/dispatcher.js';
import { readySet, shardKeys } from '../../../src/queue/dispatch/ready-set.js';
import type { AccountWork } from '../../../src/queue/dispatch/account-work.js';
import { createLogger } from '../../../src/log/logger.js';
import { uniquePrefix } from '../../helpers/redis.js';

/** The ready sets' keys of the worlds made (removed by `dropWorlds`). */
const bases: string[] = [];

/** Removes every world's ready set. */
export async function dropWorlds(redis: Redis): Promise<void> {
  for (const base of bases.splice(0))
    for (let shard = 0; shard < 8; shard++) {
      const k = shardKeys(base, shard);
      await redis.del(k.ready, k.lease, k.pass, k.vt, k.owner);
    }
}

/**
 * A world of accounts whose work the test sets, served by one dispatcher. `onStart` runs as a turn begins (what its
 * jobs would do: mark the account), `onClose` as it ends, `afterRead` after each read of an account's queues.
 */
export function world(
  redis: Redis,
  o: {
    places: number;
    idleMs?: number;
    lookMs?: number;
    turnMs?: number;
    shards?: number;
    weights?: Record<string, number>;
    onStart?: (name: string) => Promise<void>;
    onClose?: (name: string) => void;
    afterRead?: (name: string) => void;
  },
) {
  const base = uniquePrefix('dispatch');
  bases.push(base);
  const ready = readySet(redis, base, o.shards ?? 1);
  const openWhen = new Map<string, string[]>();
  const work = new Map<string, Partial<AccountWork>>();
  const open = new Set<string>();
  const turns = new Map<string, number>();
  const wakes: Array<[string, number]> = [];
  /** Each account's ms with its turn open, closed turns only, and since when its open turn is. */
  const held = new Map<string, number>();
  const openSince = new Map<string, number>();
  let mostOpen = 0;
  const dispatcher: Dispatcher = startDispatcher({
    ready,
    logger: createLogger({ level: 'silent' }),
    places: o.places,
    idleMs: o.idleMs ?? 300,
    turnMs: o.turnMs ?? 60_000,
    leaseMs: 10_000,
    pollMs: 50,
    lookMs: o.lookMs ?? 100,
    fullLookMs: 100,
    lookAgainMs: 60_000,
    knows: (name) => name !== 'stranger',
    weight: (name) => o.weights?.[name] ?? 1,
    startTurn: async (name) => {
      if (!openWhen.has(name)) openWhen.set(name, [...open]);
      open.add(name);
      mostOpen = Math.max(mostOpen, open.size);
      turns.set(name, (turns.get(name) ?? 0) + 1);
      openSince.set(name, Date.now());
      await o.onStart?.(name);
      return {
        active: () => 0,
        close: async () => {
          open.delete(name);
          held.set(name, (held.get(name) ?? 0) + Date.now() - openSince.get(name)!);
          o.onClose?.(name);
        },
      };
    },
    work: async (name) => {
      const read = { ready: 0, held: 0, nextDelayedAt: null, waits: 0, untold: 0, heldCalls: 0, nextProbeAt: null, ...work.get(name) };
      o.afterRead?.(name);
      return read;
    },
    wakeAt: async (name, at) => void wakes.push([name, at]),
  });
  /** The ms each account held a place, its open turn counted to now. */
  const heldMs = (name: string) => (held.get(name) ?? 0) + (open.has(name) ? Date.now() - openSince.get(name)! : 0);
  return { base, ready, work, open, openWhen, turns, wakes, dispatcher, heldMs, mostOpen: () => mostOpen };
}
