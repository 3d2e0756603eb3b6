import { Queue } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { intakeQueueName } from './intake-queue.js';
import type { StreamName } from '../records/stream-name.js';
import type { CheckedKind } from '../records/record-kind.js';
import type { JobPart } from './runner-kind.js';

/** What the operator's queues need of a kind: its stream and key, its scheduler (`status`) and its failure codes' hints (`jobs show`). */
export type QueuedKind = CheckedKind & { feed: { scheduler: string }; job: Pick<JobPart, 'failures'> };

/**
 * Per stream its BullMQ queue and its intake queue (import batches not yet record jobs), under the program's
 * prefix, for inspecting and retrying jobs.
 */
export interface StreamQueues {
  prefix: string;
  /** The streams' kinds, in the list's order. */
  kinds: readonly QueuedKind[];
  /** The stream names, in the list's order. */
  names: readonly StreamName[];
  /** The connection the queues share (for reads BullMQ has no call for). */
  redis: Redis;
  get(stream: StreamName): Queue;
  /** The stream's intake queue (`{stream}-intake`). */
  intake(stream: StreamName): Queue;
  all(): Array<[StreamName, Queue]>;
  /** The intake queues, per stream. */
  allIntake(): Array<[StreamName, Queue]>;
  close(): Promise<void>;
}

function open(redis: Redis, prefix: string, streams: readonly StreamName[], name: (s: StreamName) => string): Map<StreamName, Queue> {
  const queues = new Map<StreamName, Queue>(streams.map((s) => [s, new Queue(name(s), { connection: redis, prefix })]));
  // Unheard, BullMQ prints connection errors raw, past the logger; commands still reject on their own.
  for (const q of queues.values()) q.on('error', () => undefined);
  return queues;
}

export function openStreamQueues(redis: Redis, prefix: string, kinds: readonly QueuedKind[]): StreamQueues {
  const streams = kinds.map((k) => k.stream);
  const queues = open(redis, prefix, streams, (s) => s);
  const intakes = open(redis, prefix, streams, intakeQueueName);
  const pick = (from: Map<StreamName, Queue>, stream: StreamName, what: string) => {
    const q = from.get(stream);
    if (!q) throw new Error(`no ${what} opened for stream ${stream}`);
    return q;
  };
  return {
    prefix,
    kinds,
    names: streams,
    redis,
    get: (stream) => pick(queues, stream, 'queue'),
    intake: (stream) => pick(intakes, stream, 'intake queue'),
    all: () => [...queues.entries()],
    allIntake: () => [...intakes.entries()],
    close: async () => {
      await Promise.all([...queues.values(), ...intakes.values()].map((q) => q.close()));
    },
  };
}

/** The stream of the list a job id belongs to (`{stream}-{key}-{hash}`), when its prefix names one. */
export function streamOfJobId(jobId: string, streams: readonly StreamName[]): StreamName | undefined {
  // Longest names first: a stream whose name starts with another's must not be read as that one.
  return [...streams].sort((a, b) => b.length - a.length).find((s) => jobId.startsWith(`${s}-`));
}

/** Ids of intake batches start so (`intake-{stream}-{hash}`); record job ids start with their stream. */
export const INTAKE_ID_PREFIX = 'intake-';

export function isIntakeJobId(jobId: string): boolean {
  return jobId.startsWith(INTAKE_ID_PREFIX);
}

/** The stream of an intake batch id, when it names one. */
export function streamOfIntakeJobId(jobId: string, streams: readonly StreamName[]): StreamName | undefined {
  return isIntakeJobId(jobId) ? streamOfJobId(jobId.slice(INTAKE_ID_PREFIX.length), streams) : undefined;
}
