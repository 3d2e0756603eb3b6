/**
 * A store pull's cursor, kept in Redis as the feed's is (`{prefix}:cursor:{stream}`): `shopify:` and JSON. Between
 * pulls, `since`: the newest `updatedAt` queued; the next pull reads from a look-back before it. Within a pull,
 * `from` (the floor its query reads from), `after` (Shopify's page cursor) and `newest` so far, so a pull stopped
 * between pages resumes where it was. `counts`: a first read of the store is done, so what a pull finds first now is
 * what no webhook brought (the first read finds everything first).
 */
export interface StoreCursor {
  since?: string;
  from?: string;
  after?: string;
  newest?: string;
  counts?: boolean;
}

const PREFIX = 'shopify:';

export function encodeCursor(c: StoreCursor): string {
  return PREFIX + JSON.stringify(c);
}

/** A stored cursor; none (or one another source wrote) reads as the start. */
export function decodeCursor(text: string | undefined): StoreCursor {
  if (!text?.startsWith(PREFIX)) return {};
  try {
    const c = JSON.parse(text.slice(PREFIX.length)) as StoreCursor;
    const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
    const fields = {
      since: str(c.since),
      from: str(c.from),
      after: str(c.after),
      newest: str(c.newest),
      counts: c.counts === true || undefined,
    };
    return Object.fromEntries(Object.entries(fields).filter(([, v]) => v)) as StoreCursor;
  } catch {
    return {};
  }
}

/** The later of two ISO instants (either may be missing). */
export function later(a: string | undefined, b: string | undefined): string | undefined {
  if (!a) return b;
  if (!b) return a;
  return Date.parse(b) > Date.parse(a) ? b : a;
}
