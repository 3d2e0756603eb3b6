/** The parts of a kind's declaration (src/kinds/kind.ts) about its stream that the engine's modules share. */

/** A stream's name: the feed's stream, its BullMQ queue, its job ids' prefix. The list of kinds says which exist. */
export type StreamName = string;

/** Which date field of its records a stream's go-live floor applies to, and the setting that sets the floor. */
export interface GoLiveRule {
  /** A `YYYY-MM-DD` date or a `YYYY-MM-DDTHH:MM:SS` naive date-time field of the record. */
  field: string;
  /** The variable that sets the floor, one of the kind's settings: its value in config.goLive. */
  setting: string;
}

/** How the control queue pulls a stream: every few seconds, or at the times of a cron pattern. */
export type PullSchedule = { every: number } | { pattern: string; tz?: string };
