import { randomBytes } from 'node:crypto';
import { CallHeldError, isServiceError } from '../../client/answers/errors.js';
import { callScopeLabel } from '../../client/call-scope.js';
import type { Layer } from '../../client/layers/call-layers.js';
import { shortDateTime } from '../../time/date-format.js';
import { findRedisFailure } from '../../redis/errors.js';
import type { CallHolds } from './call-holds.js';

/** Errors that met the service down on a call that is held now: the runner holds their job at that call. */
const heldBy = new WeakMap<object, string>();

/** The service down (5xx, the network, a time-out), not Redis under the budget: what a call's hold counts. */
function serviceDown(err: unknown): boolean {
  return isServiceError(err) && err.code === 'TRANSIENT' && !findRedisFailure(err);
}

/** An answer of the service (a 4xx, a 2xx that could not be read): the call is up, whatever the answer says. */
function answered(err: unknown): err is { status: number; code: string } {
  return isServiceError(err) && err.status !== undefined && err.code !== 'RATE_LIMITED' && err.code !== 'TRANSIENT';
}

/**
 * The call this failure of a job holds it at, if any: a request not sent because its call is held (CallHeldError),
 * or one that met the service down on a call that is held now (itself or its cause).
 */
export function heldCallOf(err: unknown): string | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) {
    if (e instanceof CallHeldError) return e.scope;
    const call = heldBy.get(e);
    if (call) return call;
  }
  return undefined;
}

/**
 * The holds of the service's named calls around one job's client (src/queue/hold/call-hold.ts): a request of a held
 * call is not sent (CallHeldError: the job waits at this step) unless it is the call's trial; every request's outcome
 * counts toward its call's hold. The answer or error itself always reaches the job as it came.
 */
export function callHoldLayer(holds: CallHolds, jobId: string): Layer {
  return (next) => async (req) => {
    const call = req.scope;
    const token = `${jobId}:${randomBytes(4).toString('hex')}`;
    const gate = await holds.gate(call, token);
    if (gate.state === 'held') {
      const h = holds.heldAs(call);
      const label = callScopeLabel(call);
      const since = h ? ` since ${shortDateTime(new Date(h.since).toISOString(), '?')} UTC` : '';
      throw new CallHeldError(
        `${req.method} ${req.path} was not sent: ${label} is held${since}${h?.reason ? ` (${h.reason})` : ''}; ` +
          `the job waits at this step and goes on once ${label} works again`,
        { method: req.method, path: req.path, scope: call },
      );
    }
    const trial = gate.state === 'trial' ? gate.token : undefined;
    try {
      const answer = await next(req);
      await holds.answered(call, 'answered', trial);
      return answer;
    } catch (err) {
      if (serviceDown(err)) {
        if (await holds.failed(call, err, trial)) heldBy.set(err as object, call);
      } else if (answered(err)) await holds.answered(call, `HTTP ${err.status} (${err.code})`, trial);
      else if (trial) await holds.giveBack(call, trial);
      throw err;
    }
  };
}
