// The project's date formats, in one place.

const p2 = (n: number) => String(n).padStart(2, '0');

/** `2026-11-20 19:00:05` from an ISO timestamp (in its own zone, to the second), as tables show it; `none` for none. */
export function shortDateTime(iso: string | null | undefined, none = ''): string {
  return iso ? iso.replace('T', ' ').slice(0, 19) : none;
}

/** The UTC day of an instant: `2026-11-20`. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Naive local date-time `2026-11-20T19:00:05` (no zone): how the service writes dates (docs/service.md "Entities"). */
export function localDateTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${p2(d.getMonth() + 1)}-${p2(d.getDate())}T${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}`;
}
