import type { ApiCall, CallOptions, RequestClass } from '../api-call.js';
import type { Decoder } from '../answers/shape.js';

/** One call of a row, on its way to the wire: what every layer sees and may pass on changed. */
export interface ServiceRequest {
  /** The row's name (`createOrder`): what a refusal or a report names. */
  readonly call: string;
  readonly method: 'GET' | 'POST';
  /** The path filled in from the row's template; a `{url}` as the service gave it (checked before it is sent). */
  readonly path: string;
  readonly cls: RequestClass;
  /** The named call its failures count toward and a hold of which keeps it from being sent (the row's `scope`). */
  readonly scope: string;
  /** The JSON sent with a write; undefined on a read. */
  readonly body?: string;
  readonly decode: Decoder<unknown>;
  readonly options: CallOptions;
  /** What the layers attach to the request for the request function, which knows none of them. */
  readonly context: CallContext;
}

/** The head of an answer: its status and headers. */
export type AnswerListener = (status: number, headers: Readonly<Record<string, string | string[] | undefined>>) => void;

/**
 * What layers attach to one call without the request function knowing them: each adds to it (`withContext`), none
 * overwrites another's.
 */
export interface CallContext {
  /** Headers read when the request goes out, each layer's (the credentials' authorization, as they are then). */
  readonly headers: ReadonlyArray<() => Readonly<Record<string, string>>>;
  /** Called with the head of every answer as soon as it arrives (the budget's shares read X-RateLimit-* there). */
  readonly answers: readonly AnswerListener[];
  /** Fields of the call's report a layer knows (the budget's wait, in ms). */
  readonly report: Readonly<{ waitedMs?: number }>;
  /** Run in turn right before the request leaves; one that throws keeps it from being sent (the fence's check again). */
  readonly beforeSend?: ReadonlyArray<() => Promise<void>>;
}

export const EMPTY_CONTEXT: CallContext = { headers: [], answers: [], report: {} };

/** The request with `more` added to its context: header sources and answer listeners appended, report fields merged. */
export function withContext(req: ServiceRequest, more: Partial<CallContext>): ServiceRequest {
  const c = req.context;
  return {
    ...req,
    context: {
      headers: more.headers ? [...c.headers, ...more.headers] : c.headers,
      answers: more.answers ? [...c.answers, ...more.answers] : c.answers,
      report: more.report ? { ...c.report, ...more.report } : c.report,
      ...(more.beforeSend || c.beforeSend ? { beforeSend: [...(c.beforeSend ?? []), ...(more.beforeSend ?? [])] } : {}),
    },
  };
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
