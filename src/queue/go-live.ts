import type { GoLiveFloor } from '../../config/read-config.js';
import type { GoLiveRule } from '../records/stream-name.js';
import type { GoLiveSettings, JobResult } from './job-context.js';

/** The floor of a stream, from the setting its rule names (config.goLive), when that setting is set. */
export function goLiveFloor(kind: { job: { goLive?: GoLiveRule } }, settings: GoLiveSettings | undefined): GoLiveFloor | undefined {
  const setting = kind.job.goLive?.setting;
  const since = setting ? settings?.[setting] : undefined;
  return setting && since ? { since, setting } : undefined;
}

/**
 * Why a record is left alone as older than its stream's go-live floor ("before go-live: orderDate ... is before
 * SYNC_..._SINCE ..."), or undefined when it is synced: no rule or floor, no date in the record, or a date on or
 * after the floor's day (the floor is a day: an order at 00:00:01 on it is not before it).
 */
export function beforeGoLive(
  kind: { stream: string; job: { goLive?: GoLiveRule } },
  record: unknown,
  floor: GoLiveFloor | undefined,
): string | undefined {
  const field = kind.job.goLive?.field;
  if (!field || !floor) return undefined;
  const value = record && typeof record === 'object' ? (record as Record<string, unknown>)[field] : undefined;
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(value)) return undefined;
  // Both are zero-padded ISO dates: text order is date order, and no time zone enters.
  if (value.slice(0, 10) >= floor.since) return undefined;
  return `before go-live: ${field} ${value} is before ${floor.setting} ${floor.since}`;
}

/** The result of a job whose record is before go-live: skipped, nothing asked of the service. */
export function goLiveSkipped(key: string, reason: string, field: string, floor: GoLiveFloor): JobResult {
  return {
    outcome: 'skipped',
    summary: `${key} skipped, ${reason}; not written to the service`,
    why: `before go-live (${floor.setting} ${floor.since})`,
    details: { goLive: { reason, field, since: floor.since, setting: floor.setting } },
  };
}
