import { NotFollowedError } from './answers/errors.js';

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

/**
 * One round of percent-decoding as a lenient server makes it: every well-formed escape of an ASCII character (and the
 * overlong two-byte forms old decoders read as one), the rest left as it is (`50%OFF` stays `50%OFF`). Characters past
 * ASCII are left encoded: none of them is a dot or a slash.
 */
function decodeOnce(s: string): string {
  const byte = (hex: string) => parseInt(hex, 16);
  return s
    .replace(/%([cC][01])%([89abAB][0-9a-fA-F])/g, (_, a: string, b: string) =>
      String.fromCharCode(((byte(a) & 0x1f) << 6) | (byte(b) & 0x3f)),
    )
    .replace(/%([0-7][0-9a-fA-F])/g, (_, a: string) => String.fromCharCode(byte(a)));
}

/** The path a server reads once it resolves dot-segments (RFC 3986 5.2.4) in these segments; `merge` drops empty ones. */
function resolved(segments: readonly string[], merge: boolean): string[] {
  const out: string[] = [];
  for (const s of segments) {
    if (s === '..') out.pop();
    else if (s !== '.' && !(merge && s === '')) out.push(s);
  }
  return out;
}

/**
 * The segments of each way a server or proxy in front of the service may read the path before it resolves its
 * dot-segments: as sent; decoded once or twice (some decode again), either as a whole (an encoded slash, or an encoded
 * backslash too, becomes a separator) or segment by segment (an encoded slash stays inside its segment).
 */
function* readings(bare: string): Generator<string[]> {
  const raw = bare.split('/').slice(1);
  yield raw;
  let whole = bare;
  let segments = raw;
  for (let depth = 1; depth <= 2; depth++) {
    whole = decodeOnce(whole);
    segments = segments.map(decodeOnce);
    yield whole.split('/').slice(1);
    yield whole.split(/[/\\]/).slice(1);
    yield segments;
  }
}

/** The first reading of the path (empty segments kept or merged) that is not under /<account>/api/, or undefined. */
function readingOutside(bare: string, account: string): string | undefined {
  for (const segments of readings(bare)) {
    for (const merge of [false, true]) {
      const path = resolved(segments, merge);
      if (path[0] !== account || path[1] !== 'api') return `/${path.join('/')}`;
    }
  }
  return undefined;
}

/**
 * Why a path may not be followed, or undefined when it may: it must stay under /<account>/api/ however a server reads
 * it. A key travels in its segments as the service encodes it (`50%25OFF-5`, `A%2F..%2FB`), and a dot-segment that
 * stays inside the API, raw or encoded, is followed; one that climbs out of it is not.
 */
export function pathProblem(path: string, account: string): string | undefined {
  // Control characters, a backslash (read as a slash by some servers) or a fragment have no place in an API path.
  if (/[\u0000-\u001f\u007f\\#]/.test(path)) return 'has a control character, a backslash or a fragment';
  const [bare = ''] = path.split('?', 1);
  const root = `/${account}/api/`;
  if (!bare.startsWith(root)) return `is not under ${root}`;
  const outside = readingOutside(bare, account);
  if (outside !== undefined)
    return `leaves ${root} once its dot-segments are resolved (a server may read it as ${JSON.stringify(outside)})`;
  return undefined;
}

/**
 * Refuses to follow a path taken from a service answer, from Redis or built from a record's key (an entity or action
 * URL) that leaves the account's API: NOT_FOLLOWED, this program's refusal, before any request is sent (the service
 * is not asked). Answers the path to request.
 */
export function followablePath(method: string, urlOrPath: string, account: string): string {
  const path = toPath(urlOrPath);
  const problem = pathProblem(path, account);
  if (problem === undefined) return path;
  const shown = path.length > 200 ? `${path.slice(0, 200)}...` : path;
  throw new NotFollowedError(
    `${method} ${JSON.stringify(shown)}: not sent, this program refuses to follow it (the service was not asked): the path ${problem}`,
    { method, path: shown, outcome: 'not-applied' },
  );
}
