/**
 * Where to go after login: `next` resolved against the dashboard's own origin, kept only when it stays there.
 * Answers a path (with query and fragment) that browsers cannot read as another host, else '/'. Resolving as
 * browsers do catches what prefix checks miss: `/\evil.example` and `/.//evil.example` both lead off-site.
 */
export function sameOriginPath(next: unknown, origin: string): string {
  if (typeof next !== 'string' || next === '' || next.length > 2048) return '/';
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return '/';
  }
  if (url.origin !== new URL(origin).origin) return '/';
  const path = `${url.pathname}${url.search}${url.hash}`;
  return path.startsWith('/') && !path.startsWith('//') ? path : '/';
}
