import type { Readable, Writable } from 'node:stream';

/** A writable stream that may be a terminal. */
export type OutStream = Writable & { isTTY?: boolean; columns?: number };

/**
 * Everything a command takes from its process. Built in src/bin (the only place that touches `process`),
 * and by tests with their own streams and environment.
 */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: OutStream;
  stderr: OutStream;
  stdin: Readable;
  /** Aborted on the first SIGTERM/SIGINT: long-running commands stop taking work and wind down. */
  stop: AbortSignal;
}
