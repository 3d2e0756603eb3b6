const p2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/** Naive local date-time YYYY-MM-DDTHH:MM:SS, the service's format (service-spec.md section 2). */
export function formatDateTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${p2(d.getMonth() + 1)}-${p2(d.getDate())}T${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}`;
}

/** The sandbox's sense of time: injected for deterministic tests, Date.now otherwise. */
export class Clock {
  constructor(readonly now: () => number = Date.now) {}

  /** Now as the service writes dates. */
  dateTime(): string {
    return formatDateTime(this.now());
  }
}
