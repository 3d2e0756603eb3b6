import { randomUUID } from 'node:crypto';
import type { Logger } from '../log/logger.js';
import { messageOf } from '../errors/message-of.js';
import { createRedis, type RedisConnection as Redis, type RedisTarget } from '../redis/connection.js';
import type { Marker, ParkSlot } from './worker-park.js';

/**
 * The parking of a pool's idle workers (worker-park.ts says why and what BullMQ writes to the marker sets): idle
 * workers closed, and one doorbell connection that waits on every parked queue's marker set and starts its worker
 * again when work comes.
 */

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

/** Parks the slots' idle workers, and starts them again when their queue has work (see the top of worker-park.ts). */
export function startParking(o: ParkingOptions, slots: ParkSlot[]): Parking {
  const lot = new ParkingLot(o, slots);
  return { stop: () => lot.stop() };
}

class ParkingLot {
  private stopped = false;
  private readonly wakeKey: string;
  private readonly byMarker: Map<string, ParkSlot>;
  private bell: Redis | undefined;
  /** Set while the doorbell's BZPOPMIN is out, so that a park rings it to add its queue. */
  private blocked = false;
  /** A park the doorbell has not seen yet (it reads the parked set again before it waits). */
  private pending = false;
  private wakeLocal: (() => void) | undefined;
  private lastCheck = Date.now();
  private readonly idle: NodeJS.Timeout;
  private readonly loop: Promise<void>;

  constructor(
    private readonly o: ParkingOptions,
    private readonly slots: ParkSlot[],
  ) {
    this.wakeKey = `${o.prefix}:park-bell:${randomUUID()}`;
    this.byMarker = new Map(slots.map((s) => [s.key('marker'), s]));
    this.idle = setInterval(() => this.parkIdle(), Math.max(20, Math.min(o.afterMs / 4, 5_000)));
    this.idle.unref();
    this.loop = this.run();
  }

  /** The doorbell's connection, named for CLIENT LIST; its errors are the reconnections ioredis makes anyway. */
  private openBell(): Redis {
    const conn = createRedis(this.o.connection, { connectionName: `${this.o.prefix}:park-bell` });
    conn.on('error', () => undefined);
    return conn;
  }

  private fail(what: string, err: unknown): void {
    this.o.logger.debug({ err: messageOf(err) }, `parked workers: ${what}`);
  }

  private async look(slot: ParkSlot): Promise<Look> {
    const replies =
      (await this.o.conn
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
  }

  private putBack(key: string, m: Marker): Promise<unknown> {
    return this.o.conn.zadd(key, m.score, m.member).catch((err: unknown) => this.fail('a marker could not be put back', err));
  }

  /** Starts a parked (or just closed) worker again, with the marker the doorbell held. */
  private unpark(slot: ParkSlot): void {
    if (this.stopped) return;
    const held = slot.held;
    slot.held = undefined;
    slot.dueAt = undefined;
    slot.lastJobAt = Date.now();
    slot.worker = slot.create();
    slot.state = 'running';
    if (held) void this.putBack(slot.key('marker'), held);
  }

  private ring(): void {
    this.pending = true;
    this.wakeLocal?.();
    // With a life: a ring the doorbell never took (the process gone meanwhile) leaves nothing behind for long.
    if (this.blocked)
      this.o.conn
        .multi()
        .zadd(this.wakeKey, 0, 'ring')
        .pexpire(this.wakeKey, WAKE_KEY_LIFE_MS)
        .exec()
        .catch((err: unknown) => this.fail('the doorbell could not be rung', err));
  }

  private parkIdle(): void {
    const now = Date.now();
    for (const slot of this.slots)
      if (!this.stopped && slot.state === 'running' && slot.jobs === 0 && now - slot.lastJobAt >= this.o.afterMs)
        slot.parking = this.park(slot).finally(() => (slot.parking = undefined));
  }

  private async park(slot: ParkSlot): Promise<void> {
    slot.state = 'parking';
    let closed = false;
    try {
      if (wanted(await this.look(slot)) || this.stopped) {
        slot.state = 'running';
        slot.lastJobAt = Date.now();
        return;
      }
      // Not forced: a job taken up since the look finishes first.
      await slot.worker.close();
      closed = true;
      // A job added while it closed (its marker maybe taken by the closing worker) is seen here.
      const after = await this.look(slot);
      if (this.stopped) return;
      if (wanted(after)) {
        this.unpark(slot);
        return;
      }
      slot.dueAt = after.dueAt;
      slot.state = 'parked';
      this.ring();
    } catch (err) {
      this.fail('a worker could not be parked; it runs', err);
      if (closed) this.unpark(slot);
      else slot.state = 'running';
    }
  }

  /** The parked queues' active and wait lists: a job of a dead process, or one whose marker was lost, starts the worker. */
  private async check(parked: ParkSlot[]): Promise<void> {
    const conn = this.o.conn;
    const pipe = conn.pipeline();
    for (const s of parked) pipe.llen(s.key('active')).llen(s.key('wait'));
    const replies = (await pipe.exec()) ?? [];
    for (const [err] of replies) if (err) throw err;
    const n = (i: number) => Number(replies[i]![1]);
    const waiting = parked.filter((s, i) => n(2 * i) === 0 && n(2 * i + 1) > 0);
    const paused = waiting.length ? await Promise.all(waiting.map(async (s) => (await conn.hexists(s.key('meta'), 'paused')) === 1)) : [];
    for (const [i, s] of parked.entries()) if (n(2 * i) > 0) this.unpark(s);
    for (const [i, s] of waiting.entries()) if (!paused[i] && s.state === 'parked') this.unpark(s);
  }

  /** One BZPOPMIN on every parked queue's marker set and the pool's wake key, with a watchdog on a stuck reply. */
  private async waitForMarker(parked: ParkSlot[], ms: number): Promise<[string, string, string] | null> {
    const conn = (this.bell ??= this.openBell());
    const keys = [...parked.map((s) => s.key('marker')), this.wakeKey];
    this.blocked = true;
    const popped = conn.bzpopmin(...keys, Math.max(ms, 10) / 1000);
    popped.catch(() => undefined);
    let watchdog: NodeJS.Timeout | undefined;
    const stuck = new Promise<'stuck'>((r) => (watchdog = setTimeout(() => r('stuck'), ms + 2_000)));
    try {
      const reply = await Promise.race([popped, stuck]);
      if (reply !== 'stuck') return reply as [string, string, string] | null;
      // A reply that never came (a connection reset under it): a fresh connection; a marker lost so is found by `check`.
      conn.disconnect();
      if (this.bell === conn) this.bell = undefined;
      return null;
    } finally {
      this.blocked = false;
      clearTimeout(watchdog);
    }
  }

  /** One round of the doorbell: nothing while nothing is parked, else due workers started, a check, or one wait. */
  private async round(): Promise<void> {
    this.pending = false;
    const parked = this.slots.filter((s) => s.state === 'parked');
    if (parked.length === 0) {
      // Nothing parked: no Redis command until a worker parks.
      await new Promise<void>((r) => (this.wakeLocal = r));
      this.wakeLocal = undefined;
      this.lastCheck = Date.now();
      return;
    }
    const now = Date.now();
    const due = parked.filter((s) => s.dueAt !== undefined && s.dueAt <= now);
    if (due.length) {
      for (const s of due) this.unpark(s);
      return;
    }
    if (now - this.lastCheck >= this.o.checkMs) {
      this.lastCheck = now;
      return this.check(parked);
    }
    const ms = Math.min(this.o.checkMs - (now - this.lastCheck), ...parked.map((s) => (s.dueAt ?? Infinity) - now));
    if (this.pending || this.stopped) return;
    const reply = await this.waitForMarker(parked, ms);
    if (reply && reply[0] !== this.wakeKey) await this.markerCame(reply);
  }

  /** A marker the doorbell took: its worker started (the marker put back for it), or held until its job falls due. */
  private async markerCame([key, member, score]: [string, string, string]): Promise<void> {
    const marker = { member, score: Number(score) };
    const slot = this.byMarker.get(key);
    if (!slot || slot.state !== 'parked' || this.stopped) {
      await this.putBack(key, marker);
      return;
    }
    if (marker.score > Date.now()) {
      // A delayed job's marker: its worker starts when the job falls due (the marker put back then).
      slot.dueAt = Math.min(slot.dueAt ?? Infinity, marker.score);
      if (!slot.held || marker.score < slot.held.score) slot.held = marker;
      return;
    }
    // Put back for whichever worker (this one started again, or another process's) waits on it.
    await this.putBack(key, marker);
    this.unpark(slot);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.round();
      } catch (err) {
        if (this.stopped) break;
        this.fail('the doorbell failed; it waits again in a second', err);
        await sleep(1_000);
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.idle);
    this.ring();
    // The wake key ends the doorbell's wait (a marker it took meanwhile is put back); a Redis away does not hold the close.
    await Promise.race([this.loop, sleep(1_000)]);
    this.bell?.disconnect();
    await Promise.all(this.slots.map((s) => s.parking));
    // Delayed jobs' markers held for parked workers go back for the other processes' workers.
    await Promise.all(this.slots.flatMap((s) => (s.held ? [this.putBack(s.key('marker'), s.held)] : [])));
    await this.o.conn.del(this.wakeKey).catch(() => undefined);
  }
}
