/** An error that fails a job, with the failure's code (the `[CODE]` of its failedReason). */
export type CodedFailure<E extends Error = Error> = E & { readonly code: string };

/** Puts the failure's code on the error that steers BullMQ: its 'failed' listeners branch on it, not on the text. */
export function withFailureCode<E extends Error>(err: E, code: string): CodedFailure<E> {
  return Object.assign(err, { code });
}

/** The code of a failure the runner threw; undefined for an error without one (a stalled job: BullMQ's own). */
export function failureCodeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}
