import type { ServiceError } from '../../client/answers/errors.js';
import type { FeedError } from '../../feed/upstream-client.js';
import type { CheckProblem } from './check-types.js';

/**
 * What a failed read of the service means for a first run, and what to do: one code per cause, decided on the
 * client's error code and status, never on message text.
 */
export function serviceProblem(
  err: ServiceError,
  baseUrl: string,
  account: string,
): { state: 'unreachable' | 'refusing'; problem: CheckProblem } {
  const status = err.status;
  const at = `${baseUrl.replace(/\/+$/, '')}/${account}/api`;
  switch (err.code) {
    case 'UNAUTHORIZED':
      return refusing(
        'SERVICE_UNAUTHORIZED',
        status,
        `the service at ${at} refused the credentials (HTTP 401)`,
        "Check INVENTORY_API_KEY and INVENTORY_API_SECRET: a key's secret is shown once when the key is made, " +
          'and a revoked key answers 401 to everything. Make a new key if in doubt.',
      );
    case 'FORBIDDEN':
      return refusing(
        'SERVICE_FORBIDDEN',
        status,
        `the service at ${at} took the credentials but forbids reading (HTTP 403)`,
        'The key is known but may not use this account: check that it was made in the account INVENTORY_ACCOUNT names, ' +
          'by a user allowed to use the API, and is not blocked.',
      );
    case 'NOT_FOUND':
      return refusing(
        'SERVICE_NO_ACCOUNT',
        status,
        `no account at ${at}: the facility collection answered 404`,
        "Check INVENTORY_ACCOUNT (the path part after the host in the service's URL, e.g. acme in https://app.example.com/acme/) " +
          'and INVENTORY_BASE_URL (no account, no /api).',
      );
    case 'BAD_RESPONSE':
      return refusing(
        'SERVICE_BAD_RESPONSE',
        status,
        `${at} did not answer as the service does (${err.message})`,
        "Check INVENTORY_BASE_URL: it should be the service's address only, e.g. https://app.example.com.",
      );
    case 'RATE_LIMITED':
      return {
        state: 'unreachable',
        problem: {
          code: 'SERVICE_RATE_LIMITED',
          status,
          message: `the service at ${at} is over its request budget (HTTP 429)`,
          hint: "Another process spends this account's budget; wait for the reset and run check again.",
        },
      };
    case 'TRANSIENT':
      return {
        state: 'unreachable',
        problem: {
          code: 'SERVICE_UNREACHABLE',
          status,
          message: `the service at ${at} could not be reached (${err.message})`,
          hint: 'Check INVENTORY_BASE_URL and that the service is up, then run check again.',
        },
      };
    default:
      return refusing(
        'SERVICE_REFUSED',
        status,
        `the service at ${at} refused a read (${err.code}: ${err.message})`,
        err.hint ?? 'Read the message and fix the cause.',
      );
  }
}

function refusing(code: string, status: number | undefined, message: string, hint: string): { state: 'refusing'; problem: CheckProblem } {
  return { state: 'refusing', problem: status === undefined ? { code, message, hint } : { code, status, message, hint } };
}

/** What a failed first page means: 401 and 403 told apart, each with what to do. */
export function feedProblem(err: FeedError): { state: 'unreachable' | 'refusing'; problem: CheckProblem } {
  const status = err.status;
  const withStatus = (code: string, hint: string): CheckProblem =>
    status === undefined ? { code, message: err.message, hint } : { code, status, message: err.message, hint };
  if (err.code === 'FEED_UNAUTHORIZED' && status === 403) {
    return {
      state: 'refusing',
      problem: withStatus(
        'FEED_FORBIDDEN',
        "The feed knows the token but does not let it read this stream: ask the feed's owner for read access, " +
          'or for a token that has it (UPSTREAM_TOKEN).',
      ),
    };
  }
  if (err.code === 'FEED_UNAUTHORIZED') {
    return {
      state: 'refusing',
      problem: withStatus('FEED_UNAUTHORIZED', 'The feed refused the token: check UPSTREAM_TOKEN (missing, mistyped or expired).'),
    };
  }
  if (err.code === 'FEED_UNREACHABLE' || err.code === 'FEED_UNAVAILABLE') {
    return { state: 'unreachable', problem: withStatus(err.code, 'Check UPSTREAM_URL and that the feed is up, then run check again.') };
  }
  return { state: 'refusing', problem: withStatus(err.code, err.hint) };
}
