import type { IncomingHttpHeaders } from 'node:http';
import { redact } from '../../log/logger.js';
import { NOT_SENT_CODES, TIMEOUT_CODES } from '../../net/network-codes.js';
import {
  BadResponseError,
  DuplicateError,
  ForbiddenError,
  IntegrityViolationError,
  MissingReferenceError,
  NotFoundError,
  OrderCompletedError,
  RateLimitedError,
  TransientError,
  UnauthorizedError,
  ValidationError,
  type ServiceError,
  type ServiceErrorData,
  type WriteOutcome,
} from './errors.js';

/**
 * The one place that reads the service's message text: an answer or a failure of one request becomes the
 * right ServiceError, with what is known of its effect (`outcome`).
 */

export type HttpMethod = 'GET' | 'POST';

/** An HTTP answer that is not a usable 2xx. */
export interface AnswerInput {
  method: HttpMethod;
  path: string;
  status: number;
  headers?: IncomingHttpHeaders;
  /** The body as text (may be empty). */
  body?: string;
  /** Epoch ms of the answer; default Date.now(). */
  now?: number;
  /** Values to strip from messages (credentials), should the service ever echo them. */
  secrets?: string[];
}

/** No answer: the request failed on the network. */
export interface NetworkInput {
  method: HttpMethod;
  path: string;
  error: unknown;
  /** Whether the request may have reached the service. Default: judged from the error code. */
  sent?: boolean;
  /** The status, when the answer's head came but its body was lost. */
  status?: number;
  secrets?: string[];
}

/** Default hold after a 429 that says nothing of its reset. */
export const DEFAULT_RATE_LIMIT_RESET_MS = 60_000;
/** Longest hold a 429 can ask for: beyond it the header is taken to be wrong. */
const MAX_RESET_MS = 2 * 3600_000;
/** Shortest hold, so that a reset in the past (clock skew) does not make the client hammer the service. */
const MIN_RESET_MS = 1_000;
const MSG_MAX = 500;

const INTEGRITY = /integrity violation/i;
const DUPLICATE = /duplicate/i;
const MISSING = /does not exist|non-?existing|not existing/i;
const COMPLETED = /\bcompleted\b.*cannot be modified/i;
/** POSTs that change an order: to the order or one of its actions, or creating a shipment on it. */
const ORDER_WRITE = /\/api\/(order\/[^/?]+|shipment\/?$)/;

function header(headers: IncomingHttpHeaders | undefined, name: string): string | undefined {
  const v = headers?.[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Epoch ms at which a 429 says the class may be used again. */
export function rateLimitReset(headers: IncomingHttpHeaders | undefined, now = Date.now()): number {
  let at: number | undefined;
  const reset = header(headers, 'x-ratelimit-reset')?.trim();
  if (reset && /^\d+(\.\d+)?$/.test(reset)) {
    const n = Number(reset);
    // By magnitude: epoch ms (> year 2001 in ms), epoch seconds, else seconds from now.
    at = n >= 1e12 ? n : n >= 1e9 ? n * 1000 : now + n * 1000;
  } else {
    const retry = header(headers, 'retry-after')?.trim();
    if (retry && /^\d+$/.test(retry)) at = now + Number(retry) * 1000;
    else if (retry && !Number.isNaN(Date.parse(retry))) at = Date.parse(retry);
  }
  if (at === undefined) return now + DEFAULT_RATE_LIMIT_RESET_MS;
  return Math.min(Math.max(Math.ceil(at), now + MIN_RESET_MS), now + MAX_RESET_MS);
}

/** The service's message: `msg`, `errorMessage` (or `message`) of a JSON body, else the body text. */
export function serviceMessage(body: string | undefined): string | undefined {
  const text = body?.trim();
  if (!text) return undefined;
  if (text[0] === '{') {
    try {
      const json = JSON.parse(text) as Record<string, unknown>;
      for (const key of ['msg', 'errorMessage', 'message', 'error']) {
        const v = json[key];
        if (typeof v === 'string' && v.trim()) return clip(v.trim());
      }
    } catch {
      // Not JSON after all: the text is the message.
    }
  }
  return clip(text);
}

function clip(s: string): string {
  return s.length > MSG_MAX ? `${s.slice(0, MSG_MAX)}…` : s;
}

type ErrorClass = new (message: string, data: ServiceErrorData) => ServiceError;

/** The class for a 4xx other than 401/403/404/408/429, read from the message. */
function businessError(msg: string): ErrorClass {
  if (INTEGRITY.test(msg)) {
    const dup = DUPLICATE.test(msg);
    const missing = MISSING.test(msg);
    if (dup && !missing) return DuplicateError;
    if (missing && !dup) return MissingReferenceError;
    return IntegrityViolationError;
  }
  if (COMPLETED.test(msg)) return OrderCompletedError;
  return ValidationError;
}

/** Whether a POST to this path changes an order (its URL, an action of it, or a new shipment on it). */
export function writesOrder(path: string): boolean {
  return ORDER_WRITE.test(path.split('?')[0]!);
}

/** The error for a non-2xx answer. */
export function classifyAnswer(a: AnswerInput): ServiceError {
  const now = a.now ?? Date.now();
  const rawMsg = serviceMessage(a.body);
  const msg = rawMsg && a.secrets?.length ? redact(rawMsg, a.secrets) : rawMsg;
  const s = a.status;
  const post = a.method === 'POST';
  let Cls: ErrorClass;
  let outcome: WriteOutcome = 'not-applied';
  let resetAt: number | undefined;
  let what = `answered ${s}`;
  if (s === 401) Cls = UnauthorizedError;
  else if (s === 403 && post && (writesOrder(a.path) || COMPLETED.test(msg ?? ''))) {
    // Keys have no scopes (docs/service.md): a write to an order refused as forbidden means the order is
    // completed (or cancelled), not that the key lacks a right.
    Cls = OrderCompletedError;
    what = 'answered 403 (the order is completed or cancelled; API keys have no scopes)';
  } else if (s === 403) Cls = ForbiddenError;
  else if (s === 404) Cls = NotFoundError;
  else if (s === 429) {
    Cls = RateLimitedError;
    resetAt = rateLimitReset(a.headers, now);
    what = `answered 429 (over budget; class held until ${new Date(resetAt).toISOString()})`;
  } else if (s === 408) Cls = TransientError;
  else if (s >= 400 && s < 500) Cls = businessError(msg ?? '');
  else if (s === 503) Cls = TransientError;
  else if (s >= 500) {
    Cls = TransientError;
    if (post) {
      outcome = 'uncertain';
      what = `answered ${s} (the write may have been applied)`;
    }
  } else {
    // 1xx/3xx: nothing this client can use, and a write's fate is unknown.
    Cls = BadResponseError;
    if (post) outcome = 'uncertain';
    what = `answered ${s}, which the client does not handle`;
  }
  const group = `${what}${msg ? `: ${msg}` : ''}`;
  return new Cls(`${a.method} ${a.path} ${group}`, { method: a.method, path: a.path, status: s, msg, outcome, resetAt, group });
}

function errorCode(err: unknown): string | undefined {
  // Node wraps some failures (e.g. AggregateError of several addresses); the first coded one says it.
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const errors = (e as { errors?: unknown[] }).errors;
    e = Array.isArray(errors) && errors.length ? errors[0] : (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function isAbort(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === 'AbortError' || errorCode(err) === 'UND_ERR_ABORTED' || errorCode(err) === 'ABORT_ERR';
}

/** Whether a request that failed with this error may have reached the service. */
export function maybeSent(err: unknown): boolean {
  const code = errorCode(err);
  return !(code !== undefined && NOT_SENT_CODES.has(code));
}

/** The error for a request that got no usable answer (refused, DNS, reset, time-out, aborted). */
export function classifyNetworkError(n: NetworkInput): ServiceError {
  const code = errorCode(n.error);
  const sent = n.sent ?? maybeSent(n.error);
  const applied = n.status !== undefined && n.status >= 200 && n.status < 300;
  const outcome: WriteOutcome = n.method !== 'POST' || !sent ? 'not-applied' : applied ? 'applied' : 'uncertain';
  let why: string;
  if (n.status !== undefined) why = `answered ${n.status} but the body was lost (${code ?? 'network error'})`;
  else if (isAbort(n.error)) why = sent ? 'was aborted by the caller' : 'was aborted by the caller before it was sent';
  else if (!sent)
    why = code === 'UND_ERR_CONNECT_TIMEOUT' ? 'could not connect in time' : `could not reach the service (${code ?? 'network error'})`;
  else if (code && TIMEOUT_CODES.has(code)) why = 'timed out waiting for the answer';
  else why = `lost the connection before the answer (${code ?? 'network error'})`;
  const effect = outcome === 'uncertain' ? '; the write may have been applied' : outcome === 'applied' ? '; the write was applied' : '';
  const hide = (text: string) => (n.secrets?.length ? redact(text, n.secrets) : text);
  const message = hide(`${n.method} ${n.path} ${why}${effect}`);
  return new TransientError(message, {
    method: n.method,
    path: n.path,
    status: n.status,
    outcome,
    cause: n.error,
    group: hide(`${why}${effect}`),
  });
}

export type ClassifyInput = AnswerInput | NetworkInput;

/** Any failure of one request: a non-2xx answer or no answer. */
export function classify(input: ClassifyInput): ServiceError {
  return 'error' in input ? classifyNetworkError(input) : classifyAnswer(input);
}

/** The error for a 2xx whose body is not what the call expects. A POST's write was applied. */
export function badResponse(method: HttpMethod, path: string, status: number, problem: string): ServiceError {
  const outcome: WriteOutcome = method === 'POST' ? 'applied' : 'not-applied';
  const effect = method === 'POST' ? ' (the write was applied)' : '';
  const group = `answered ${status} with an unexpected body${effect}: ${clip(problem)}`;
  return new BadResponseError(`${method} ${path} ${group}`, { method, path, status, outcome, group });
}
