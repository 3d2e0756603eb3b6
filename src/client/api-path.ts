import { BadResponseError } from './answers/errors.js';

/**
 * A path as the service returns it (entity and action URLs): absolute URLs give their path and query (never their
 * origin: requests go to the configured service only), a missing leading slash is added. Never normalises: a
 * dot-segment stays visible to the check below.
 */
export function toPath(urlOrPath: string): string {
  const absolute = /^https?:\/\/[^/?#]*/i.exec(urlOrPath);
  const rest = absolute ? urlOrPath.slice(absolute[0].length) : urlOrPath;
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/** A segment decoded until it stops changing (so %252e%252e is seen as ..), or undefined when it is malformed. */
function decoded(segment: string): string | undefined {
  let s = segment;
  for (let i = 0; i < 3 && s.includes('%'); i++) {
    try {
      s = decodeURIComponent(s);
    } catch {
      return undefined;
    }
  }
  return s;
}

/** Why a path may not be followed, or undefined when it may: under /<account>/api/, no dot-segment even encoded. */
export function pathProblem(path: string, account: string): string | undefined {
  // Control characters, a backslash (read as a slash by some servers) or a fragment have no place in an API path.
  if (/[\u0000-\u001f\u007f\\#]/.test(path)) return 'has a control character, a backslash or a fragment';
  const [bare = ''] = path.split('?', 1);
  const root = `/${account}/api/`;
  if (!bare.startsWith(root)) return `is not under ${root}`;
  const segments = bare.slice(root.length).split('/');
  for (const [i, segment] of segments.entries()) {
    const d = decoded(segment);
    if (d === undefined) return 'has a malformed percent-encoding';
    // An encoded slash is kept (an orderId may hold one) but may be decoded by a server: no dot-segment between them either.
    if (d.split(/[/\\]/).some((part) => part === '.' || part === '..')) return 'has a dot-segment';
    if (segment === '' && i < segments.length - 1) return 'has an empty segment';
  }
  return undefined;
}

/**
 * Refuses to follow a path taken from a service answer or from Redis (an entity or action URL) that leaves the
 * account's API: BAD_RESPONSE, before any request is sent. Answers the path to request.
 */
export function followablePath(method: string, urlOrPath: string, account: string): string {
  const path = toPath(urlOrPath);
  const problem = pathProblem(path, account);
  if (problem === undefined) return path;
  const shown = path.length > 200 ? `${path.slice(0, 200)}...` : path;
  throw new BadResponseError(`${method} ${JSON.stringify(shown)}: not followed, the path ${problem}`, {
    method,
    path: shown,
    outcome: 'not-applied',
  });
}
