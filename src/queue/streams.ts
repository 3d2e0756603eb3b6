import { streamDefs, type StreamName } from '../../jobs/streams.js';

export type { StreamName };

/** The feed streams (jobs/streams.ts); each has one BullMQ queue of the same name. */
export const STREAMS = streamDefs.map((d) => d.stream) as unknown as readonly [StreamName, ...StreamName[]];

export function isStream(name: string): name is StreamName {
  return (STREAMS as readonly string[]).includes(name);
}
