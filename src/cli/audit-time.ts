import { UsageError } from './exit-codes.js';

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since`/`--until`: an ISO date or date-time (`2026-11-20`, `2026-11-20T08:00:00Z`), or an age (`30m`, `24h`, `7d`). */
export function parseAuditTime(option: string, text: string, now = Date.now()): number {
  const age = /^(\d+)([mhd])$/.exec(text.trim());
  if (age) return now - Number(age[1]) * UNIT_MS[age[2]!]!;
  const t = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(t))
    throw new UsageError(
      `${option}: "${text}" is not a time: give an ISO date or date-time (2026-11-20T08:00:00Z) or an age (30m, 24h, 7d)`,
    );
  return t;
}
