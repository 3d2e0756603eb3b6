import type { OutStream } from '../app/cli-io.js';
import { forAccount } from '../errors/error-hints.js';

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
