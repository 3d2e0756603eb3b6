/**
 * Node and undici error codes of network trouble: the one list that the service client (was the request sent?),
 * the job runner (retry as TRANSIENT) and the CLI's exit codes (unreachable) read.
 */

/** The request never reached the server: refused, no such host, no route, no connection in time. */
export const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Sent, but no answer came in time. */
export const TIMEOUT_CODES: ReadonlySet<string> = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** Sent, then the connection was lost. */
const LOST_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/** Whether an error code is one of network trouble, which a later try can get past. */
export function isNetworkCode(code: unknown): boolean {
  return typeof code === 'string' && (NOT_SENT_CODES.has(code) || TIMEOUT_CODES.has(code) || LOST_CODES.has(code));
}
