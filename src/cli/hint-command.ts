import type { OutStream } from '../app/cli-io.js';

/** Where a printed command line begins: `inventory-sync` and a command word, not yet with `--account`. */
const COMMAND_LINE = /\binventory-sync (?!--account )(?=[a-z])/g;

/**
 * The text with every command line it prints run for `account` (`inventory-sync --account NAME ...`): a command of
 * one account needs it when ACCOUNTS_FILE names several, so a hint runs as printed where it was printed.
 */
export function forAccount(text: string, account: string): string {
  return text.replace(COMMAND_LINE, `inventory-sync --account ${account} `);
}

/**
 * The stream a command run with `--account NAME` writes to: every command line it prints (hints, next steps, the
 * lines of its log records) carries the account; everything else of the stream is the stream's own (a terminal's
 * width, a progress bar's cursor moves).
 */
export function accountHintsStream(stream: OutStream, account: string): OutStream {
  const write = (chunk: unknown, ...rest: unknown[]): boolean =>
    (stream.write as (...args: unknown[]) => boolean)(typeof chunk === 'string' ? forAccount(chunk, account) : chunk, ...rest);
  return new Proxy(stream, {
    get(target, prop) {
      if (prop === 'write') return write;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
