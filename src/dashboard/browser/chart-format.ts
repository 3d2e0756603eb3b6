/** Colours of the charts, also read by the browser tests (failed bars are the only red fill of a records chart). */
export const COLORS = {
  synced: '#2a9d4b',
  failed: '#d0021b',
  lag: '#1f6feb',
  requests: '#56606e',
  limit: '#d0021b',
  axis: '#3b4452',
  grid: '#e6e9ee',
} as const;

/** Seconds as a short duration: 45 s, 12 min, 2.5 h; '-' for none. */
export function duration(s: number | null | undefined): string {
  if (s === null || s === undefined) return '-';
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

/** A rate in its unit (a minute, an hour), with one decimal below 10: "120/min", "300/h". */
export function rate(v: number | null | undefined, unit: 'min' | 'h' = 'min'): string {
  if (v === null || v === undefined) return '-';
  return `${v < 10 ? Math.round(v * 10) / 10 : Math.round(v)}/${unit}`;
}

/** The sum of a series' values. */
export const sum = (values: Array<number | null>): number => values.reduce<number>((n, v) => n + (v ?? 0), 0);

/** The last value that is not null, or null. */
export function lastValue(values: Array<number | null>): number | null {
  for (let i = values.length - 1; i >= 0; i--) {
    const v = values[i];
    if (v !== null && v !== undefined) return v;
  }
  return null;
}

/** The index of the last value that is not null, or -1. */
export function lastIndex(values: ArrayLike<number | null | undefined>): number {
  for (let i = values.length - 1; i >= 0; i--) if (values[i] !== null && values[i] !== undefined) return i;
  return -1;
}

/** HH:MM:SS UTC of an epoch ms. */
export const clock = (ms: number): string => `${new Date(ms).toISOString().slice(11, 19)} UTC`;
