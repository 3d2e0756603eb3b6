import { isServiceError } from '../../client/answers/errors.js';
import type { ServiceApi } from '../../client/service-api.js';
import { findRedisFailure } from '../../redis/errors.js';

/** What one probe of the service found: it answered (any answer but the service down), or not, and what it met. */
export interface ProbeResult {
  up: boolean;
  detail: string;
}

/**
 * One read of the service, sent once, for the outage's probe: an order that does not exist (a 404 is the good answer,
 * as for the start's probe). Any answer but the service down (5xx, the network, a time-out) says it is back: a 401 or
 * a 429 is an answer, and the jobs meet it as they would. A Redis failure on the way (the budget) says nothing about
 * the service: it is thrown.
 */
export async function probeOnce(client: Pick<ServiceApi, 'getOrder' | 'entityPath'>): Promise<ProbeResult> {
  try {
    await client.getOrder(client.entityPath('order', 'inventory-sync-probe'), { retries: 0 });
    return { up: true, detail: 'HTTP 200' };
  } catch (err) {
    if (!isServiceError(err) || findRedisFailure(err)) throw err;
    if (err.code === 'TRANSIENT') return { up: false, detail: err.status ? `HTTP ${err.status}` : err.message.slice(0, 200) };
    return { up: true, detail: `HTTP ${err.status ?? '?'} (${err.code})` };
  }
}
