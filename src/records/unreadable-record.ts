import { defaults } from '../../config/defaults.js';

/** Characters of an unreadable record kept for operators (in its job) and for finding its key. */
export const HEAD_CHARS = 4096;
/** Characters of an unreadable record quoted in its job data. */
export const QUOTE_CHARS = 120;

/**
 * A record of a feed page that cannot be read as one: larger than the cap, nested too deep, not UTF-8 or not JSON.
 * It stands in the page's items where the record was, so that it becomes a job of its own that fails at once
 * (BAD_RECORD, with `reason`) while the rest of the page is queued and the cursor moves on.
 */
export class UnreadableRecord {
  constructor(
    /** Why it cannot be read, e.g. "nested deeper than 32 levels". */
    readonly reason: string,
    /** The start of its text (at most HEAD_CHARS), decoded leniently: enough to find its key. */
    readonly head: string,
    /** sha256 (hex) of its bytes as delivered: an identical re-delivery gets the same job id. */
    readonly hash: string,
    /** Its size in bytes. */
    readonly bytes: number,
  ) {}
}

/** Thrown where a record nests deeper than the cap; callers turn it into a bad record of its own. */
export class RecordTooDeepError extends Error {
  readonly code = 'RECORD_TOO_DEEP';
  constructor(readonly maxDepth = defaults.maxRecordDepth) {
    super(tooDeep(maxDepth));
    this.name = 'RecordTooDeepError';
  }
}

/** The reasons operators read, one wording each wherever the record came from. */
export const tooDeep = (maxDepth: number) => `nested deeper than ${maxDepth} levels`;
export const tooLarge = (bytes: number, max: number) => `is ${mb(bytes)}, larger than the cap of ${mb(max)} (MAX_RECORD_BYTES)`;
export const notUtf8 = 'is not valid UTF-8';

function mb(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${bytes} bytes`;
}
