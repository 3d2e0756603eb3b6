import type { Config } from '../../config/read-config.js';
import { settingValues } from '../../config/kind-setting.js';
import type { FeedKind } from './feed-kind.js';
import type { PullSchedule } from '../records/stream-name.js';

/** What scheduling and running a kind's pulls needs of it. */
export type PulledKind = FeedKind;

/** How a kind's stream is pulled with this configuration: every few seconds or on a cron (in its time zone). */
export function pullScheduleOf(kind: PulledKind, schedule: Config['schedule']): PullSchedule {
  return kind.feed.pull(settingValues(kind, schedule));
}
