import type { Worker } from 'bullmq';

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
export interface Marker {
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
