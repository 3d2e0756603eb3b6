/** One API request the sandbox received, as tests and the dry-run comparison read it back. */
export interface LoggedRequest {
  /** Epoch ms when it arrived. */
  at: number;
  method: string;
  /** The path as sent (/{account}/api/...), without the query. */
  path: string;
  query: string;
  /** The answer's status; absent for a dropped, reset or hung request. */
  status?: number;
  /** When it spent its budget (the sandbox's clock, epoch ms): absent for a request refused (429) or of no budget. */
  spentAt?: number;
  /** A POST's body, parsed when it is JSON (else the text). */
  body?: unknown;
}

/** How many requests the log keeps (the oldest go first). */
export const requestLogSize = 20_000;

/** The last requests of the API (admin requests are not logged), cleared on reset. */
export class RequestLog {
  private entries: LoggedRequest[] = [];

  add(entry: LoggedRequest): LoggedRequest {
    this.entries.push(entry);
    if (this.entries.length > requestLogSize) this.entries.splice(0, this.entries.length - requestLogSize);
    return entry;
  }

  /** A copy of the log, oldest first. */
  list(): LoggedRequest[] {
    return structuredClone(this.entries);
  }

  clear(): void {
    this.entries = [];
  }
}
