/**
 * The service or the feed answered, and refused this program (401, 403): exit 3 as for a server that cannot be
 * reached, since nothing can be done until someone with access fixes it; the message names the settings to check.
 */
export class RefusedError extends Error {
  constructor(
    readonly what: 'the service' | 'the feed',
    message: string,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'RefusedError';
  }
}
