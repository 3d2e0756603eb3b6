import type { Dispatcher } from 'undici';
import { freezeAt } from './freeze-hook.js';
import { redact } from '../../log/logger.js';
import { messageOf } from '../../errors/message-of.js';
import { BodyTooLargeError, readCappedText } from '../answers/capped-body.js';
import type { Send, ServiceRequest } from './call-layers.js';
import { badResponse, classifyAnswer, classifyNetworkError } from '../answers/classify.js';
import { isServiceError, type ServiceError } from '../answers/errors.js';
import type { ApiCall, CallOptions } from '../api-call.js';
import type { Decoder } from '../answers/shape.js';

/** What the one HTTP request of a call needs: where, for how long, and what never to repeat in an error. */
export interface HttpSendOptions {
  origin: string;
  /** The base URL's path, prefixed to every request's. */
  basePath: string;
  dispatcher: Dispatcher;
  /** The secrets' forms an answer's text may echo (the credentials'), redacted from every error. */
  secrets: () => string[];
  entityTimeoutMs: number;
  collectionTimeoutMs: number;
  maxResponseBytes: number;
}

type Headers = Dispatcher.ResponseData['headers'];

/** A reporter that throws must not turn an applied write into a failure, nor a reader of headers fail the call. */
function quietly(fn: () => void): void {
  try {
    fn();
  } catch {
    // Reports are for traces, metrics and checks; the call's result stands.
  }
}

function decodeBody(req: ServiceRequest, status: number, text: string, secrets: string[]): unknown {
  let json: unknown;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {
    throw badResponse(req.method, req.path, status, redact(`not JSON: ${text.slice(0, 80)}`, secrets));
  }
  try {
    return (req.decode as Decoder<unknown>)(json);
  } catch (err) {
    throw badResponse(req.method, req.path, status, messageOf(err));
  }
}

/**
 * The one request function at the bottom of the layers: one HTTP request, its answer classified and decoded, reported
 * to `onCall` once. The path is sent as it comes (the layers above checked it); what the layers attached comes in the
 * request's context (headers, listeners of the answer's head, fields of the report), whichever layers they are.
 */
export function httpSend(opts: HttpSendOptions): Send {
  const { maxResponseBytes, secrets } = opts;
  return async (req) => {
    const { method, path, cls, context } = req;
    const o: CallOptions = req.options;
    // The fence made again when it is old (fence-layer.ts): nothing leaves for an execution that lost its lease.
    for (const check of context.beforeSend ?? []) await check();
    const at = Date.now();
    const t0 = performance.now();
    const headers: Record<string, string> =
      req.body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' };
    for (const h of context.headers) Object.assign(headers, h());
    const timeout = cls === 'collection' ? opts.collectionTimeoutMs : opts.entityTimeoutMs;
    let status: number | null = null;
    let value: unknown;
    let failure: ServiceError | undefined;
    try {
      const res = await opts.dispatcher.request({
        origin: opts.origin,
        path: opts.basePath + path,
        method,
        headers,
        body: req.body,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        signal: o.signal,
      });
      status = res.statusCode;
      freezeAt('in-flight', req.call);
      const answered = status;
      for (const listen of context.answers) quietly(() => listen(answered, res.headers));
      if (o.onHeaders) quietly(() => o.onHeaders!(res.headers as Headers));
      let text: string;
      try {
        text = await readCappedText(res.body, maxResponseBytes);
      } catch (err) {
        // The head came, the body did not: a 2xx write was applied; other answers are read from the head alone.
        if (status >= 200 && status < 300) throw err instanceof BodyTooLargeError ? badResponse(method, path, status, err.message) : err;
        text = '';
      }
      if (status >= 200 && status < 300) value = decodeBody(req, status, text, secrets());
      else failure = classifyAnswer({ method, path, status, headers: res.headers, body: text, secrets: secrets() });
    } catch (err) {
      failure = isServiceError(err)
        ? err
        : classifyNetworkError({ method, path, error: err, status: status ?? undefined, secrets: secrets() });
    }
    if (o.onCall) {
      const ms = Math.round(performance.now() - t0);
      const call: ApiCall = { method, path, cls, status, ms, waitedMs: context.report.waitedMs ?? 0, at };
      if (failure) call.error = failure.code;
      quietly(() => o.onCall!(call));
    }
    if (failure) throw failure;
    return value;
  };
}
