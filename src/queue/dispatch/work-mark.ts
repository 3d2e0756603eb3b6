import type { Config } from '../../../config/read-config.js';
import type { RedisConnection as Redis } from '../../redis/connection.js';
import { readySet } from './ready-set.js';

/**
 * Work added to an account marks it in the deployment's ready set (ready-set.ts), wherever it is added: a page pulled,
 * an import, a push, an operator's retry or resume, a waiting record released. The queues opened for an account of
 * ACCOUNTS_FILE carry the mark (`announceWork`): their adds mark it, and whatever moves their jobs back to wait calls
 * `markWork(queue)`. A mark that Redis refused is not lost work: the jobs are in Redis, and the sweep (sweep.ts) finds
 * them. The environment's one account runs its own workers all the time and marks nothing.
 */

/** Told of each mark this process makes (the dispatcher claims at once rather than at its next look). */
const listeners = new Set<(account: string) => void>();

/** Hears the marks this process makes, until the answer is called. */
export function listenToMarks(listener: (account: string) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The mark of an account of ACCOUNTS_FILE (its configuration names it), or undefined for the environment's account. */
export function workMarkOf(redis: Redis, config: Pick<Config, 'accountName' | 'dispatch'>): (() => void) | undefined {
  const name = config.accountName;
  if (name === undefined) return undefined;
  const ready = readySet(redis, config.dispatch.base, config.dispatch.shards);
  return () => {
    ready.mark(name).then(
      () => {
        for (const l of listeners) l(name);
      },
      // Refused (Redis full, away, a dry run's read-only connection): the sweep finds the work.
      () => undefined,
    );
  };
}

const marks = new WeakMap<object, () => void>();

type Adds = { add(...args: never[]): Promise<unknown>; addBulk(...args: never[]): Promise<unknown> };

/** Makes a queue's adds mark its account (nothing without a mark). */
export function announceWork<Q extends Adds>(queue: Q, mark: (() => void) | undefined): Q {
  if (!mark) return queue;
  marks.set(queue, mark);
  const add = queue.add.bind(queue) as (...args: unknown[]) => Promise<unknown>;
  const addBulk = queue.addBulk.bind(queue) as (...args: unknown[]) => Promise<unknown>;
  const marked =
    (f: (...args: unknown[]) => Promise<unknown>) =>
    async (...args: unknown[]) => {
      const added = await f(...args);
      mark();
      return added;
    };
  Object.assign(queue, { add: marked(add), addBulk: marked(addBulk) });
  return queue;
}

/** Marks the queue's account: jobs of it were moved back to wait (a retry, a resume, a release). */
export function markWork(queue: object): void {
  marks.get(queue)?.();
}
