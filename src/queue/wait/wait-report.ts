import type { RedisConnection as Redis, RedisKeys } from '../../redis/connection.js';
import { shortDateTime } from '../../time/date-format.js';
import { refWords, type Reference } from './reference.js';
import { readWaitGroups, type WaitGroup } from './wait-store.js';

/** Most waiting groups a report lists (the oldest first); the rest are counted in `more`. */
export const MAX_WAIT_GROUPS = 50;

/** The records of a stream that wait for one reference, as `status` and the dashboard show them. */
export interface WaitStatus {
  stream: string;
  waitsFor: Reference;
  count: number;
  /** When the oldest of them began to wait (ISO). */
  since: string;
  /** "12 records of orders wait for product MUG-ORANGE, since 2026-12-06 07:30 UTC". */
  text: string;
}

/** The waiting records by what they wait for: the oldest groups, and how many groups more. */
export interface WaitReport {
  groups: WaitStatus[];
  more: number;
}

/** A count of a stream's records in a sentence: `1 record of orders`, `12 records of stock-counts`. */
export function recordsText(stream: string, count: number): string {
  return `${count} record${count === 1 ? '' : 's'} of ${stream}`;
}

/** "12 records of orders wait for product MUG-ORANGE, since 2026-12-06 07:30 UTC". */
export function waitText(g: Pick<WaitGroup, 'stream' | 'ref' | 'count' | 'since'>): string {
  const verb = g.count === 1 ? 'waits' : 'wait';
  const since = shortDateTime(new Date(g.since).toISOString()).slice(0, 16);
  return `${recordsText(g.stream, g.count)} ${verb} for ${refWords(g.ref)}, since ${since} UTC`;
}

/** Reads the waiting groups once (src/queue/wait/wait-store.ts). */
export async function readWaits(redis: Redis, keys: RedisKeys): Promise<WaitReport> {
  const all = await readWaitGroups(redis, keys);
  return {
    groups: all.slice(0, MAX_WAIT_GROUPS).map((g) => ({
      stream: g.stream,
      waitsFor: g.ref,
      count: g.count,
      since: new Date(g.since).toISOString(),
      text: waitText(g),
    })),
    more: Math.max(0, all.length - MAX_WAIT_GROUPS),
  };
}
