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
  /** The variables the working folder's .env file set (those the environment did not): named in problems of where a setting came from. */
  dotenv?: ReadonlySet<string>;
  /** `--account NAME`: the account of ACCOUNTS_FILE a command acts on (absent: the only one, or every one where that makes sense). */
  account?: string;
  /** `--verbose`: a one-shot command writes its info records on stderr too (docs/commands.md, "What a command prints"). */
  verbose?: boolean;
  /**
   * `--dry-run`, of whichever command: the one switch. The parts a command opens from it (openApp, commandQueues) then
   * only read, so a command or source that forgot to plan cannot write, queue or move anything (docs/commands.md).
   */
  dryRun?: boolean;
  /** Aborted on the first SIGTERM/SIGINT: long-running commands stop taking work and wind down. */
  stop: AbortSignal;
}
