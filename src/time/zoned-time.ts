const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(zone, f);
  }
  return f;
}

const pad = (n: number) => String(Math.floor(Math.abs(n))).padStart(2, '0');

/**
 * An instant (the GraphQL Admin API's DateTime, in UTC) as Shopify's REST resources and webhooks write it: the shop's
 * wall clock with its UTC offset (`2026-11-21T15:30:12-05:00`). So a pulled order reads as its webhook does.
 */
export function zonedTime(iso: string | null | undefined, zone: string): string | null {
  if (!iso) return null;
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return null;
  const parts = Object.fromEntries(
    formatOf(zone)
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const local = `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
  const offsetMin = Math.round((Date.parse(`${local}Z`) - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
  const sign = offsetMin < 0 ? '-' : '+';
  return `${local}${sign}${pad(offsetMin / 60)}:${pad(offsetMin % 60)}`;
}
