import { ConfigError } from '../../config/read-config.js';
import { UnreachableError } from '../errors/unreachable-error.js';
import { RefusedError } from '../errors/refused-error.js';
import type { FeedError } from '../feed/upstream-client.js';
import { isNetworkCode } from '../net/network-codes.js';
import { findRedisFailure } from '../redis/errors.js';
import { messageOf } from '../errors/message-of.js';

/** Exit codes of docs/reference.md. */
export const ExitCode = {
  /** Done and every record synced. */
  ok: 0,
  /** Done, but some records failed (they are listed). */
  someFailed: 1,
  /** Wrong usage or configuration. */
  usage: 2,
  /** Redis, the service or the feed could not be reached or refused the credentials (or Redis failed: MOVED, CROSSSLOT...). */
  unreachable: 3,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** A wrong command line that commander cannot see (e.g. an unknown stream name). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The exit code and the stderr lines for an error that ended a command. */
export function describeFailure(err: unknown): { code: ExitCodeValue; lines: string[] } {
  if (err instanceof ConfigError) return { code: ExitCode.usage, lines: err.problems };
  if (err instanceof UsageError) return { code: ExitCode.usage, lines: [err.message] };
  // By name, as the feed's: a CSV file whose header cannot be used (src/feed/csv-records.ts); nothing was queued.
  if (err instanceof Error && err.name === 'CsvHeaderError') return { code: ExitCode.usage, lines: [err.message] };
  if (err instanceof UnreachableError && err.what === 'Redis')
    return { code: ExitCode.unreachable, lines: [`${err.message}: ${causeText(err.cause)}`, err.hint] };
  // Before the service's and the feed's: a Redis failure under a service error (the budget is in Redis) is Redis's.
  const redis = findRedisFailure(err);
  if (redis) return { code: ExitCode.unreachable, lines: [`Redis failed: ${redis.message}`, redis.hint] };
  if (err instanceof UnreachableError) return { code: ExitCode.unreachable, lines: [`${err.message}: ${causeText(err.cause)}`, err.hint] };
  if (err instanceof RefusedError) return { code: ExitCode.unreachable, lines: [err.message] };
  // By name: importing the feed client here would load undici for every command.
  if (err instanceof Error && err.name === 'FeedError') {
    const feedErr = err as FeedError;
    const lines = [feedErr.message, feedErr.hint];
    // Not reached, or refusing the token: nothing this run can do until the feed or its token is fixed.
    if (['FEED_UNREACHABLE', 'FEED_UNAVAILABLE', 'FEED_UNAUTHORIZED'].includes(feedErr.code)) return { code: ExitCode.unreachable, lines };
    return { code: ExitCode.someFailed, lines };
  }
  if (err instanceof Error && err.name === 'AbortError') {
    return {
      code: ExitCode.someFailed,
      lines: ['interrupted: active jobs were given the grace period; queued ones wait for the next run'],
    };
  }
  if (isUnreachableLike(err)) {
    return { code: ExitCode.unreachable, lines: [`could not reach a server: ${causeText(err)}`] };
  }
  const message = messageOf(err);
  return { code: ExitCode.someFailed, lines: [`error: ${message}`] };
}

function causeText(cause: unknown): string {
  if (!cause) return 'no answer';
  if (cause instanceof AggregateError && cause.errors.length) return causeText(cause.errors[0]);
  const nodeError = (cause as { lastNodeError?: unknown }).lastNodeError; // a cluster client's, when no seed answered
  if (nodeError) return causeText(nodeError);
  if (cause instanceof Error) return (cause as NodeJS.ErrnoException).code ?? cause.message;
  return String(cause);
}

function isUnreachableLike(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; e && depth < 4; depth++) {
    if (e instanceof AggregateError && e.errors.some(isUnreachableLike)) return true;
    if (isNetworkCode((e as { code?: unknown }).code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
