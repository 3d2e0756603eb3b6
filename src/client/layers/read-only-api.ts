import type { Layer } from './call-layers.js';

/** A write reached a client that must only read: a bug in the dry run, never sent. */
export class WriteRefusedError extends Error {
  readonly code = 'WRITE_REFUSED';
  readonly retryable = false;

  constructor(readonly call: string) {
    super(`internal error: ${call} was called on a read-only service client (dry run); nothing was sent`);
    this.name = 'WriteRefusedError';
  }
}

/** Every read passes; every write (any call but a GET) is refused before anything is sent. */
export const readOnly: Layer = (next) => (req) => (req.method === 'GET' ? next(req) : Promise.reject(new WriteRefusedError(req.call)));

/** The service for the dry run: every read as `api` makes it, every write refused before anything is sent. */
export function readOnlyApi<A>(api: { with(layer: Layer): A }): A {
  return api.with(readOnly);
}
