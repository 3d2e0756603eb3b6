import type { Queue } from 'bullmq';
import type { QueueSet } from '../queue/queues.js';

/** What a dry run may ask of a queue besides its getters (`get*`, `is*`): reading, listening, closing. */
const ALLOWED = new Set([
  'count',
  'toKey',
  'trace',
  'exportPrometheusMetrics',
  'waitUntilReady',
  'close',
  'disconnect',
  'on',
  'once',
  'off',
  'addListener',
  'prependListener',
  'prependOnceListener',
  'removeListener',
  'removeAllListeners',
  'emit',
  'listeners',
  'rawListeners',
  'listenerCount',
  'eventNames',
  'setMaxListeners',
]);

/** A job added, moved or removed through a dry run's queues: a bug, refused before anything reaches Redis. */
export class QueueWriteRefusedError extends Error {
  readonly code = 'WRITE_REFUSED';
  constructor(
    readonly queue: string,
    readonly method: string,
  ) {
    super(`internal error: ${method} was called on the ${queue} queue in a dry run, which queues nothing; nothing was sent`);
    this.name = 'QueueWriteRefusedError';
  }
}

const allowed = (name: string) => ALLOWED.has(name) || /^(get|is)[A-Z]/.test(name);

/** `queue` for a dry run: its reads as they are, every other method (add, addBulk, retry, pause, ...) refused. */
export function readOnlyQueue<Q extends Queue>(queue: Q): Q {
  return new Proxy(queue, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      if (typeof prop === 'string' && !allowed(prop))
        return () => {
          throw new QueueWriteRefusedError(target.name, prop);
        };
      // Bound to the queue itself: its own calls inside (a getter's script) never meet the guard.
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}

/** The queues of a dry run: each stream's record and intake queue read-only (readOnlyQueue); closing closes them. */
export function readOnlyQueues(queues: QueueSet): QueueSet {
  const made = new Map<Queue, Queue>();
  const guarded = <Q extends Queue>(q: Q): Q => {
    if (!made.has(q)) made.set(q, readOnlyQueue(q));
    return made.get(q) as Q;
  };
  return {
    prefix: queues.prefix,
    get: (stream) => guarded(queues.get(stream)),
    intake: (stream) => guarded(queues.intake(stream)),
    streams: () => queues.streams(),
    close: () => queues.close(),
  };
}
