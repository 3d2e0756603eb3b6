import { randomUUID } from 'node:crypto';
import type { Worker } from 'bullmq';
import type { Logger } from '../log/logger.js';
import { messageOf } from '../errors/message-of.js';
import { createRedis, type RedisConnection as Redis, type RedisTarget } from '../redis/connection.js';

/**
 * Parked workers (StartWorkersOptions.park): a BullMQ worker keeps a connection of its own for its blocking wait on
 * the queue's marker set (`{prefix}:{queue}:marker`), so an idle account held one per queue. A worker that ran no job
 * for a while is closed instead ("parked"), and one doorbell connection per pool waits on the marker sets of every
 * parked queue at once (one BZPOPMIN), starting the queue's worker again when a marker comes.
 *
 * What BullMQ 6.7 writes there (its Lua scripts): a job added to wait, a delayed or retried job promoted, a stalled job
 * moved back, or a paused queue resumed with jobs: `ZADD marker 0 "0"`, unless the queue is paused or at its global
 * concurrency; a delayed job added or moved, or a resume with only delayed jobs: `ZADD marker <next due, ms> "1"`;
 * a pause deletes the marker set. A started worker asks for a job at once (no marker needed), and learns the next
 * delayed job's time from that answer.
 */

/** A marker taken off a queue's marker set by the doorbell, to be put back as it was. */
interface Marker {
  score: number;
  member: string;
}

/** The keys of a queue the parking reads (BullMQ's names). */
export type ParkKey = 'marker' | 'wait' | 'prioritized' | 'active' | 'delayed' | 'meta';

/** One worker that may be parked: made by the pool, closed and made again by the parking. */
export interface ParkSlot<W extends Worker = Worker> {
  /** The worker object now (closed while parked). */
  worker: W;
  state: 'running' | 'parking' | 'parked';
  /** Jobs of this worker running in this process now. */
  jobs: number;
  /** When it last took up or finished a job, or started (ms since the epoch). */
  lastJobAt: number;
  /** While parked: when the queue's next delayed job falls due (ms since the epoch). */
  dueAt?: number;
  /** While parked: a delayed job's marker the doorbell took, put back when the worker starts again. */
  held?: Marker;
  /** The park under way (its lookups and the worker's close), awaited by a closing pool. */
  parking?: Promise<void>;
  /** A key of the worker's queue. */
  key(type: ParkKey): string;
  /** Makes the worker again, with the pool's options and listeners (and tells the pool's watchers). */
  create(): W;
}

/** A slot for a worker the pool makes with `create`; its processor runs through `trackJobs` of the slot. */
export function parkSlot<W extends Worker>(key: (type: ParkKey) => string, create: () => W): ParkSlot<W> {
  const slot = { state: 'running', jobs: 0, lastJobAt: Date.now(), key, create } as Omit<ParkSlot<W>, 'worker'> as ParkSlot<W>;
  slot.worker = create();
  return slot;
}

/** A processor that counts its jobs in the slot (a busy worker is never parked). */
export function trackJobs<A extends unknown[], R>(slot: () => ParkSlot | undefined, run: (...args: A) => Promise<R>) {
  return async (...args: A): Promise<R> => {
    const s = slot();
    if (s) {
      s.jobs++;
      s.lastJobAt = Date.now();
    }
    try {
      return await run(...args);
    } finally {
      if (s) {
        s.jobs--;
        s.lastJobAt = Date.now();
      }
    }
  };
}

/** Whether the slot's worker runs, or is parked or parking (it starts again when work comes): for readiness. */
export const slotRuns = (slot: ParkSlot) => slot.state !== 'running' || slot.worker.isRunning();

export interface ParkingOptions {
  /** A worker that ran no job for this long, with nothing for it in its queue, is parked (ms). */
  afterMs: number;
  /**
   * How often the parked queues are looked at besides their markers (ms): a job left active by a process that died
   * (its worker is started, and BullMQ's stalled-job check takes the job back), or a job whose marker was lost.
   */
  checkMs: number;
  /** The pool's connection (plain commands); the doorbell opens one of its own on `connection` when it first waits. */
  conn: Redis;
  connection: RedisTarget | string;
  prefix: string;
  logger: Logger;
}

export interface Parking {
  /** Stops parking and the doorbell; parks under way settle (a worker closed by one stays closed). */
  stop(): Promise<void>;
}

/** What a look at a queue found. */
interface Look {
  paused: boolean;
  /** Jobs in wait and prioritized. */
  ready: number;
  active: number;
  /** When the next delayed job falls due (ms), if any. */
  dueAt?: number;
}

/** Work a worker is needed for now: a job ready (the queue not paused), or one active (maybe of a process that died). */
const wanted = (l: Look) => l.active > 0 || (!l.paused && l.ready > 0);

/** Life of a pool's wake key (`{prefix}:park-bell:{id}`, docs/redis.md): a ring is taken within a doorbell's round. */
const WAKE_KEY_LIFE_MS = 60_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/** Parks the slots' idle workers, and starts them again when their queue has work (see the top of this file). */
export function startParking(o: ParkingOptions, slots: ParkSlot[]): Parking {
  let stopped = false;
  const wakeKey = `${o.prefix}:park-bell:${randomUUID()}`;
  const byMarker = new Map(slots.map((s) => [s.key('marker'), s]));
  let bell: Redis | undefined;
  /** Set while the doorbell's BZPOPMIN is out, so that a park rings it to add its queue. */
  let blocked = false;
  /** A park the doorbell has not seen yet (it reads the parked set again before it waits). */
  let pending = false;
  let wakeLocal: (() => void) | undefined;
  let lastCheck = Date.now();

  /** The doorbell's connection, named for CLIENT LIST; its errors are the reconnections ioredis makes anyway. */
  const openBell = () => {
    const conn = createRedis(o.connection, { connectionName: `${o.prefix}:park-bell` });
    conn.on('error', () => undefined);
    return conn;
  };
  const fail = (what: string, err: unknown) => o.logger.debug({ err: messageOf(err) }, `parked workers: ${what}`);

  const look = async (slot: ParkSlot): Promise<Look> => {
    const replies =
      (await o.conn
        .pipeline()
        .hget(slot.key('meta'), 'paused')
        .llen(slot.key('wait'))
        .zcard(slot.key('prioritized'))
        .llen(slot.key('active'))
        .zrange(slot.key('delayed'), '0', '0', 'WITHSCORES')
        .exec()) ?? [];
    for (const [err] of replies) if (err) throw err;
    const [paused, wait, prioritized, active, delayed] = replies.map(([, v]) => v) as [string | null, number, number, number, string[]];
    // A delayed job's score is its due time in ms times 0x1000 (BullMQ's getDelayedScore).
    const due = delayed.length === 2 ? Math.floor(Number(delayed[1]) / 0x1000) : undefined;
    return { paused: paused !== null, ready: wait + prioritized, active, ...(due === undefined ? {} : { dueAt: due }) };
  };

  const putBack = (key: string, m: Marker) =>
    o.conn.zadd(key, m.score, m.member).catch((err: unknown) => fail('a marker could not be put back', err));

  /** Starts a parked (or just closed) worker again, with the marker the doorbell held. */
  const unpark = (slot: ParkSlot) => {
    if (stopped) return;
    const held = slot.held;
    slot.held = undefined;
    slot.dueAt = undefined;
    slot.lastJobAt = Date.now();
    slot.worker = slot.create();
    slot.state = 'running';
    if (held) void putBack(slot.key('marker'), held);
  };

  const ring = () => {
    pending = true;
    wakeLocal?.();
    // With a life: a ring the doorbell never took (the process gone meanwhile) leaves nothing behind for long.
    if (blocked)
      o.conn
        .multi()
        .zadd(wakeKey, 0, 'ring')
        .pexpire(wakeKey, WAKE_KEY_LIFE_MS)
        .exec()
        .catch((err: unknown) => fail('the doorbell could not be rung', err));
  };

  const park = async (slot: ParkSlot) => {
    slot.state = 'parking';
    let closed = false;
    try {
      if (wanted(await look(slot)) || stopped) {
        slot.state = 'running';
        slot.lastJobAt = Date.now();
        return;
      }
      // Not forced: a job taken up since the look finishes first.
      await slot.worker.close();
      closed = true;
      // A job added while it closed (its marker maybe taken by the closing worker) is seen here.
      const after = await look(slot);
      if (stopped) return;
      if (wanted(after)) {
        unpark(slot);
        return;
      }
      slot.dueAt = after.dueAt;
      slot.state = 'parked';
      ring();
    } catch (err) {
      fail('a worker could not be parked; it runs', err);
      if (closed) unpark(slot);
      else slot.state = 'running';
    }
  };

  const idle = setInterval(
    () => {
      const now = Date.now();
      for (const slot of slots)
        if (!stopped && slot.state === 'running' && slot.jobs === 0 && now - slot.lastJobAt >= o.afterMs)
          slot.parking = park(slot).finally(() => (slot.parking = undefined));
    },
    Math.max(20, Math.min(o.afterMs / 4, 5_000)),
  );
  idle.unref();

  /** The parked queues' active and wait lists: a job of a dead process, or one whose marker was lost, starts the worker. */
  const check = async (parked: ParkSlot[]) => {
    const pipe = o.conn.pipeline();
    for (const s of parked) pipe.llen(s.key('active')).llen(s.key('wait'));
    const replies = (await pipe.exec()) ?? [];
    for (const [err] of replies) if (err) throw err;
    const n = (i: number) => Number(replies[i]![1]);
    const waiting = parked.filter((s, i) => n(2 * i) === 0 && n(2 * i + 1) > 0);
    const paused = waiting.length ? await Promise.all(waiting.map(async (s) => (await o.conn.hexists(s.key('meta'), 'paused')) === 1)) : [];
    for (const [i, s] of parked.entries()) if (n(2 * i) > 0) unpark(s);
    for (const [i, s] of waiting.entries()) if (!paused[i] && s.state === 'parked') unpark(s);
  };

  /** One BZPOPMIN on every parked queue's marker set and the pool's wake key, with a watchdog on a stuck reply. */
  const waitForMarker = async (parked: ParkSlot[], ms: number): Promise<[string, string, string] | null> => {
    const conn = (bell ??= openBell());
    const keys = [...parked.map((s) => s.key('marker')), wakeKey];
    blocked = true;
    const popped = conn.bzpopmin(...keys, Math.max(ms, 10) / 1000);
    popped.catch(() => undefined);
    let watchdog: NodeJS.Timeout | undefined;
    const stuck = new Promise<'stuck'>((r) => (watchdog = setTimeout(() => r('stuck'), ms + 2_000)));
    try {
      const reply = await Promise.race([popped, stuck]);
      if (reply !== 'stuck') return reply as [string, string, string] | null;
      // A reply that never came (a connection reset under it): a fresh connection; a marker lost so is found by `check`.
      conn.disconnect();
      if (bell === conn) bell = undefined;
      return null;
    } finally {
      blocked = false;
      clearTimeout(watchdog);
    }
  };

  const round = async () => {
    pending = false;
    const parked = slots.filter((s) => s.state === 'parked');
    if (parked.length === 0) {
      // Nothing parked: no Redis command until a worker parks.
      await new Promise<void>((r) => (wakeLocal = r));
      wakeLocal = undefined;
      lastCheck = Date.now();
      return;
    }
    const now = Date.now();
    const due = parked.filter((s) => s.dueAt !== undefined && s.dueAt <= now);
    if (due.length) {
      for (const s of due) unpark(s);
      return;
    }
    if (now - lastCheck >= o.checkMs) {
      lastCheck = now;
      return check(parked);
    }
    const ms = Math.min(o.checkMs - (now - lastCheck), ...parked.map((s) => (s.dueAt ?? Infinity) - now));
    if (pending || stopped) return;
    const reply = await waitForMarker(parked, ms);
    if (!reply || reply[0] === wakeKey) return;
    const [key, member, score] = reply;
    const marker = { member, score: Number(score) };
    const slot = byMarker.get(key);
    if (!slot || slot.state !== 'parked' || stopped) {
      await putBack(key, marker);
      return;
    }
    if (marker.score > Date.now()) {
      // A delayed job's marker: its worker starts when the job falls due (the marker put back then).
      slot.dueAt = Math.min(slot.dueAt ?? Infinity, marker.score);
      if (!slot.held || marker.score < slot.held.score) slot.held = marker;
      return;
    }
    // Put back for whichever worker (this one started again, or another process's) waits on it.
    await putBack(key, marker);
    unpark(slot);
  };

  const loop = (async () => {
    while (!stopped) {
      try {
        await round();
      } catch (err) {
        if (stopped) break;
        fail('the doorbell failed; it waits again in a second', err);
        await sleep(1_000);
      }
    }
  })();

  return {
    async stop() {
      stopped = true;
      clearInterval(idle);
      ring();
      // The wake key ends the doorbell's wait (a marker it took meanwhile is put back); a Redis away does not hold the close.
      await Promise.race([loop, sleep(1_000)]);
      bell?.disconnect();
      await Promise.all(slots.map((s) => s.parking));
      // Delayed jobs' markers held for parked workers go back for the other processes' workers.
      await Promise.all(slots.flatMap((s) => (s.held ? [putBack(s.key('marker'), s.held)] : [])));
      await o.conn.del(wakeKey).catch(() => undefined);
    },
  };
}
