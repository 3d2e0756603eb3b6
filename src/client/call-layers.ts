import type { ApiCall, CallOptions, RequestClass } from './api-call.js';
import type { Decoder } from './shape.js';

/** One call of a row, on its way to the wire: what every layer sees and may pass on changed. */
export interface ServiceRequest {
  /** The row's name (`createOrder`): what a refusal or a report names. */
  readonly call: string;
  readonly method: 'GET' | 'POST';
  /** The path filled in from the row's template; a `{url}` as the service gave it (checked before it is sent). */
  readonly path: string;
  readonly cls: RequestClass;
  /** The JSON sent with a write; undefined on a read. */
  readonly body?: string;
  readonly decode: Decoder<unknown>;
  readonly options: CallOptions;
  /** Time the request waited for budget before it was sent, in ms (set by the budget layer). */
  readonly waitedMs?: number;
  /** The credentials' version the request went out with, written when it is sent (read by the 401 layer). */
  readonly sentWith?: { version: number };
  /** Called with the head of every answer that arrived, as soon as it did (the budget layer reads its limits). */
  readonly onAnswer?: (status: number, headers: Readonly<Record<string, string | string[] | undefined>>) => void;
}

/** The one request function: a request in, the decoded answer out, every failure a ServiceError. */
export type Send = (req: ServiceRequest) => Promise<unknown>;

/** Wraps the request function, as an undici interceptor wraps a dispatcher. */
export type Layer = (next: Send) => Send;

/** The layers around `send`, the first outermost (it sees a request first and its answer last). */
export function compose(layers: readonly Layer[], send: Send): Send {
  return layers.reduceRight<Send>((next, layer) => layer(next), send);
}

/**
 * Reports every HTTP request of a call to `onCall` (before the caller's own `onCall`), and gives a call without a
 * signal of its own `signal`: the trace of a job's attempt (`jobs show`, its spans), or the client's metrics.
 */
export function tracing(onCall: (call: ApiCall) => void, signal?: AbortSignal): Layer {
  return (next) => (req) => {
    const o = req.options;
    const report = (call: ApiCall) => {
      onCall(call);
      o.onCall?.(call);
    };
    const s = o.signal ?? signal;
    return next({ ...req, options: { ...o, onCall: report, ...(s ? { signal: s } : {}) } });
  };
}
