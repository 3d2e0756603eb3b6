import type { FoundIntent } from './job-lease.js';

/**
 * What `jobs show`, `find`, the dashboard's job page and an order's snapshot log tell of the fence (src/queue/lease/):
 * the notes the job runner adds to an attempt's trace.
 */

/** An attempt that stopped at the fence before a write. */
export const ABANDONED_TEXT = 'write abandoned: lease lost (another execution holds the job)';

/** The start of the note of an intent found at the lease's take and settled by reading. */
export const SETTLED_START = 'intent settled by reading:';

/** The note of an intent a previous execution left, once the kind settled it. */
export function settledText(found: FoundIntent): string {
  return (
    `${SETTLED_START} ${found.call} of an earlier execution (fenced at ${new Date(found.at).toISOString()}) was in ` +
    'flight when it stopped; its outcome was taken from the progress and the service before anything new was written'
  );
}

/** The fence's notes among an attempt's. */
export function fenceNotes(notes: ReadonlyArray<{ message: string }>): string[] {
  return notes.map((n) => n.message).filter((m) => m === ABANDONED_TEXT || m.startsWith(SETTLED_START));
}

/** How an attempt ended, in a word: failed, its outcome, abandoned (stopped at the fence) or running. */
export function attemptEndWord(a: { error?: unknown; result?: { outcome: string }; notes: ReadonlyArray<{ message: string }> }): string {
  if (a.error) return 'failed';
  if (a.result) return a.result.outcome;
  return fenceNotes(a.notes).includes(ABANDONED_TEXT) ? 'abandoned' : 'running';
}
