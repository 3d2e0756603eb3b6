import { ConfigError } from '../../config/read-config.js';
import { isServiceError } from '../client/answers/errors.js';
import type { ServiceApi } from '../client/service-api.js';
import { findRedisFailure } from '../redis/errors.js';
import { UnreachableError } from '../errors/unreachable-error.js';
import { RefusedError } from '../errors/refused-error.js';

/**
 * Checks that the service answers and takes the credentials, with one entity GET (an order that does not
 * exist: a 404 is the good answer). Throws UnreachableError, RefusedError (credentials refused) or ConfigError, so
 * a run fails fast and clearly;
 * a Redis failure on the way (the budget) is thrown as it is, for a Redis message.
 */
export async function probeService(client: ServiceApi, baseUrl: string): Promise<void> {
  try {
    await client.getOrder(client.entityPath('order', 'inventory-sync-probe'));
  } catch (err) {
    // The request budget lives in Redis: a request not sent for a Redis failure says nothing about the service.
    if (!isServiceError(err) || findRedisFailure(err)) throw err;
    if (err.code === 'NOT_FOUND') return;
    if (err.code === 'UNAUTHORIZED' || err.code === 'FORBIDDEN') {
      throw new RefusedError(
        'the service',
        `INVENTORY_API_KEY, INVENTORY_API_SECRET: the service at ${baseUrl} refused them (HTTP ${err.status ?? '?'}); ` +
          'check them and INVENTORY_ACCOUNT',
        err,
      );
    }
    if (err.code === 'TRANSIENT' || err.code === 'RATE_LIMITED') {
      throw new UnreachableError('the service', baseUrl, 'Check INVENTORY_BASE_URL and that the service is up, then run again.', err);
    }
    if (err.status === 404 || err.code === 'BAD_RESPONSE') {
      throw new ConfigError([
        `INVENTORY_BASE_URL, INVENTORY_ACCOUNT: ${baseUrl} did not answer as the service does (${err.message}); check both`,
      ]);
    }
  }
}
