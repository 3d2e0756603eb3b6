import { localDateTime } from '../time/date-format.js';

/** The sandbox's sense of time: injected for deterministic tests, Date.now otherwise. */
export class Clock {
  constructor(readonly now: () => number = Date.now) {}

  /** Now as the service writes dates. */
  dateTime(): string {
    return localDateTime(this.now());
  }
}
