import { messageOf } from '../../errors/message-of.js';
import type { RequestBudget } from '../budget/budget.js';
import { withContext, type Layer } from './call-layers.js';
import { classifyNetworkError } from '../answers/classify.js';
import { isServiceError, TransientError } from '../answers/errors.js';

/**
 * The shared budget around every HTTP request: it waits for its class's slot (the wait is reported with the call),
 * every answer's X-RateLimit-* head feeds the lanes' shares, and a 429 holds its class for every process
 * until the reset before the caller sees it.
 */
export function budgeted(budget: RequestBudget): Layer {
  return (next) => async (req) => {
    const { method, path, cls } = req;
    const signal = req.options.signal;
    let waitedMs: number;
    try {
      waitedMs = await budget.acquire(cls, signal);
    } catch (err) {
      if (signal?.aborted) throw classifyNetworkError({ method, path, error: err, sent: false });
      throw new TransientError(`${method} ${path} was not sent: the request budget could not be read from Redis (${messageOf(err)})`, {
        method,
        path,
        cause: err,
      });
    }
    // What an answer says of the account's budget, for every process (not awaited: the call's result does not wait on it).
    const answer = (status: number, headers: Parameters<RequestBudget['observe']>[2]) => void budget.observe(cls, status, headers);
    try {
      return await next(withContext(req, { answers: [answer], report: { waitedMs } }));
    } catch (err) {
      // The hold is best effort: the 429 itself must reach the caller even when Redis does not answer.
      if (isServiceError(err) && err.code === 'RATE_LIMITED' && err.resetAt) await budget.hold(cls, err.resetAt).catch(() => undefined);
      throw err;
    }
  };
}
