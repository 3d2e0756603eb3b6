import pRetry from 'p-retry';
import { followablePath } from '../api-path.js';
import { withContext, type Layer } from './call-layers.js';
import { classifyNetworkError } from '../answers/classify.js';
import type { Credentials } from '../credentials.js';
import { isServiceError } from '../answers/errors.js';

/** A 429 on a read whose reset is further away than this goes to the caller instead of being waited out. */
const MAX_READ_HOLD_MS = 60_000;

function shouldRetryRead(err: unknown): boolean {
  return isServiceError(err) && err.retryable && (err.code !== 'RATE_LIMITED' || (err.resetAt ?? 0) - Date.now() <= MAX_READ_HOLD_MS);
}

/**
 * A GET is tried again on retryable errors, at most `retries` times (or the call's own `retries`), with jittered
 * doubling delays from `minDelayMs`; a 429 waits for its reset first (the budget layer holds it). A POST is tried
 * once: whether a failed write may be tried again is the caller's decision (see `outcome`).
 */
export function readRetries(retries: number, minDelayMs: number): Layer {
  return (next) => async (req) => {
    if (req.method !== 'GET') return next(req);
    const o = req.options;
    let first: unknown;
    try {
      // The first try runs bare: p-retry's bookkeeping is only paid once something failed.
      return await next(req);
    } catch (err) {
      if (!shouldRetryRead(err) || (o.retries ?? retries) === 0) throw err;
      first = err;
    }
    try {
      return await pRetry((attempt) => (attempt === 1 ? Promise.reject(first) : next(req)), {
        retries: o.retries ?? retries,
        minTimeout: minDelayMs,
        maxTimeout: 10_000,
        randomize: true,
        signal: o.signal,
        shouldRetry: ({ error }) => shouldRetryRead(error),
      });
    } catch (err) {
      // Aborted between tries: still one error family for the caller.
      throw isServiceError(err) ? err : classifyNetworkError({ method: 'GET', path: req.path, error: err, sent: false });
    }
  };
}

/** Whether the credentials changed since `version` was refused (read again now); if not, that version is refused. */
async function rotatedSince(credentials: Credentials, version: number): Promise<boolean> {
  if (!credentials.rotatable) return false;
  await credentials.reload();
  if (credentials.version !== version) return true;
  credentials.markRefused(version);
  return false;
}

/**
 * Signs each request with the credentials as they are when it goes out (after its wait for budget), and on a 401
 * reads the credentials' files again: when they changed since the request was sent, sends it once more at once with
 * the new ones (a 401 is answered before anything is done, so a write is safe to repeat).
 */
export function credentialRotation(credentials: Credentials): Layer {
  return (next) => async (req) => {
    let version = credentials.version;
    const authorization = () => {
      version = credentials.version;
      return { authorization: credentials.authorization() };
    };
    const signed = withContext(req, { headers: [authorization] });
    try {
      return await next(signed);
    } catch (err) {
      if (!isServiceError(err) || err.code !== 'UNAUTHORIZED' || !(await rotatedSince(credentials, version))) throw err;
      return next(signed);
    }
  };
}

/**
 * Paths come from answers and Redis too: only ones that stay under /<account>/api/ however a server reads them are
 * followed (src/client/api-path.ts); any other is NOT_FOLLOWED, this program's refusal, before it spends budget or is sent.
 */
export function followedPaths(account: string): Layer {
  return (next) => (req) => next({ ...req, path: followablePath(req.method, req.path, account) });
}
