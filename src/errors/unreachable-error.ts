/** Redis, the service or the feed did not answer. */
export class UnreachableError extends Error {
  constructor(
    readonly what: 'Redis' | 'the service' | 'the feed',
    /** Where it was looked for (never with credentials). */
    readonly where: string,
    readonly hint: string,
    cause?: unknown,
  ) {
    super(`${what} could not be reached at ${where}`, cause === undefined ? undefined : { cause });
    this.name = 'UnreachableError';
  }
}
