/** The three feed streams; each has one BullMQ queue of the same name. */
export const STREAMS = ['orders', 'stock-counts', 'boms'] as const;
export type StreamName = (typeof STREAMS)[number];

export function isStream(name: string): name is StreamName {
  return (STREAMS as readonly string[]).includes(name);
}
