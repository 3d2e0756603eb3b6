import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { STREAMS, type StreamName } from '../queue/streams.js';

/** One BullMQ queue per stream, under the program's prefix, for inspecting and retrying jobs. */
export interface StreamQueues {
  prefix: string;
  get(stream: StreamName): Queue;
  all(): Array<[StreamName, Queue]>;
  close(): Promise<void>;
}

export function openStreamQueues(redis: Redis, prefix: string, streams: readonly StreamName[] = STREAMS): StreamQueues {
  const queues = new Map<StreamName, Queue>(streams.map((s) => [s, new Queue(s, { connection: redis, prefix })]));
  // Unheard, BullMQ prints connection errors raw, past the logger; commands still reject on their own.
  for (const q of queues.values()) q.on('error', () => undefined);
  return {
    prefix,
    get(stream) {
      const q = queues.get(stream);
      if (!q) throw new Error(`no queue opened for stream ${stream}`);
      return q;
    },
    all: () => [...queues.entries()],
    close: async () => {
      await Promise.all([...queues.values()].map((q) => q.close()));
    },
  };
}

/** The stream a job id belongs to (`{stream}-{key}-{hash}`), when its prefix names one. */
export function streamOfJobId(jobId: string): StreamName | undefined {
  // Longest names first: "stock-counts-" must not be read as another stream.
  return [...STREAMS].sort((a, b) => b.length - a.length).find((s) => jobId.startsWith(`${s}-`));
}
