import type { IncomingMessage, ServerResponse } from 'node:http';
import { routeApi } from './api-router.js';
import type { BudgetClass, Refusal } from './budgets.js';
import type { LoggedRequest } from './request-log.js';
import { isCollection } from './collections.js';
import { parseJson, readBody, sendJson, sendMsg } from './http-io.js';
import type { SandboxCore } from './sandbox-core.js';
import { ApiError } from './validation.js';
import { messageOf } from '../errors/message-of.js';

const CLASSES: Record<string, readonly BudgetClass[]> = {
  get: ['get', 'total'],
  post: ['post', 'total'],
  collection: ['get', 'collection', 'total'],
};

/**
 * One request to /{account}/api/...: latency, account (404), auth (401), budget (429), faults, then the
 * router. Hung requests are kept in `hung` so that close() can end them.
 */
export async function handleApi(core: SandboxCore, req: IncomingMessage, res: ServerResponse, path: string, query: string): Promise<void> {
  const { counters } = core;
  counters.requests++;
  const logged = core.requestLog.add({ at: Date.now(), method: req.method ?? 'GET', path, query });
  // Once the request spent budget, every answer tells what is left of it, as real services do.
  let budgetHeaders: Record<string, number> | undefined;
  const answer = (status: number, json: string, headers?: Record<string, string | number>) => {
    counters.byStatus[status] = (counters.byStatus[status] ?? 0) + 1;
    logged.status = status;
    sendJson(res, status, json, { ...budgetHeaders, ...headers });
  };
  const fail = (status: number, msg: string, headers?: Record<string, string | number>) => answer(status, JSON.stringify({ msg }), headers);

  const lat = core.latency;
  if (lat && (lat.ms > 0 || (lat.jitterMs ?? 0) > 0)) await sleep(lat.ms + core.random() * (lat.jitterMs ?? 0));

  const parts = path.split('/');
  if (parts[2] !== 'api' || parts.length < 4) return fail(404, `No API at ${path}: paths are /{account}/api/{collection}[/{id}]`);
  if (parts[1] !== core.account) return fail(404, `Unknown account ${safeDecode(parts[1] ?? '')}`);
  if (!core.authorized(req.headers.authorization)) {
    return fail(401, 'Unauthorized: send the header authorization: Basic base64(key:secret)', {
      'www-authenticate': 'Basic realm="inventory"',
    });
  }
  // A revoked key, a forbidden action or one business refusal for all (faults status-401, -403, -400): nothing is done.
  const refusal = core.faults.active ? core.faults.pick(req.method ?? 'GET', path, true) : undefined;
  if (refusal) {
    counters.faults[refusal.kind] = (counters.faults[refusal.kind] ?? 0) + 1;
    if (refusal.kind === 'status-401')
      return fail(401, 'Unauthorized: the API key was revoked', { 'www-authenticate': 'Basic realm="inventory"' });
    if (refusal.kind === 'status-400') return fail(400, refusal.msg ?? 'The request was refused');
    return fail(403, 'Forbidden: this account may not do this through the API');
  }
  const segments: string[] = [];
  for (let i = 3; i < parts.length; i++) {
    const s = parts[i] as string;
    if (s === '' && i === parts.length - 1) break; // a trailing slash names the same resource
    const d = safeDecode(s);
    if (d === undefined || d === '') return fail(404, `No resource at ${path}`);
    segments.push(d);
  }
  const method = req.method ?? 'GET';
  const cls =
    method === 'GET'
      ? segments.length === 1 && isCollection(segments[0] as string)
        ? 'collection'
        : 'get'
      : method === 'POST'
        ? 'post'
        : undefined;
  if (cls) {
    counters.byClass[cls === 'collection' ? 'get' : cls]++;
    if (cls === 'collection') counters.byClass.collection++;
    const { refusal, headers } = spendBudget(core, CLASSES[cls] as readonly BudgetClass[], logged);
    budgetHeaders = headers;
    if (refusal) {
      counters.rateLimited++;
      return fail(429, `Too many requests: the ${refusal.cls} budget of ${refusal.limit} is used up until ${refusal.reset}`, {
        'x-ratelimit-limit': refusal.limit,
        'x-ratelimit-reset': refusal.reset,
      });
    }
  }

  const fault = core.faults.active ? core.faults.pick(method, path) : undefined;
  if (fault) {
    counters.faults[fault.kind] = (counters.faults[fault.kind] ?? 0) + 1;
    if (fault.kind === 'status-503') return fail(503, 'Service unavailable, try again later');
    if (fault.kind === 'reset') return void req.socket.resetAndDestroy();
    if (fault.kind === 'hang') {
      if (fault.hangMs !== undefined) {
        const t = setTimeout(() => fail(504, 'Gateway time-out'), fault.hangMs);
        res.on('close', () => clearTimeout(t));
      }
      return;
    }
  }

  let status = 200;
  let json: string;
  try {
    const text = method === 'POST' ? await readBody(req, core.maxBodyBytes) : '';
    if (method === 'POST') logged.body = bodyOf(text);
    // Dropped now, done later: a gateway gave up on the request while the service still works on it.
    if (fault?.kind === 'drop-then-apply') {
      req.socket.destroy();
      await sleep(fault.hangMs ?? 0);
    }
    json = routeApi(core.ctx, { method, segments, query, body: () => parseJson(text) });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    status = err.status;
    json = JSON.stringify({ msg: err.msg });
  }
  if (fault?.kind === 'apply-then-drop' || fault?.kind === 'drop-then-apply') return void req.socket.destroy();
  // Applied, then no answer (for hangMs, else until the client gives up): a caller killed in that window never knows.
  if (fault?.kind === 'apply-then-hang') {
    if (fault.hangMs !== undefined) {
      const t = setTimeout(() => fail(504, 'Gateway time-out'), fault.hangMs);
      res.on('close', () => clearTimeout(t));
    }
    return;
  }
  answer(status, json);
}

/**
 * Takes a request's budgets (when the sandbox has any): the refusal when one is used up, else what is left to tell on
 * the answer. The log says when a request spent budget.
 */
function spendBudget(
  core: SandboxCore,
  classes: readonly BudgetClass[],
  logged: LoggedRequest,
): { refusal?: Refusal; headers?: Record<string, number> } {
  if (!core.budgets.active) return {};
  const now = core.clock.now();
  const refusal = core.budgets.take(classes, now);
  if (refusal) return { refusal };
  if (core.budgets.spends(classes)) logged.spentAt = now;
  return { headers: core.budgets.headers(classes, core.clock.now()) };
}

/** Answers an unexpected failure without taking the server down. */
export function internalError(res: ServerResponse, err: unknown): void {
  if (res.headersSent) return void res.destroy();
  sendMsg(res, 500, `Internal sandbox error: ${messageOf(err)}`);
}

function bodyOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
