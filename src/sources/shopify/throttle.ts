/** The query cost bucket as the store's last answer said it (`extensions.cost.throttleStatus`). */
export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

/**
 * The store's leaky bucket as this process knows it: what the last answer said, restored at its rate since. A query
 * waits until the bucket holds its requested cost, so a THROTTLED answer does not come in normal running.
 */
export class CostBucket {
  private status: ThrottleStatus | undefined;
  private at = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Learns the bucket from an answer's throttleStatus. */
  learn(status: ThrottleStatus | undefined): void {
    if (!status) return;
    this.status = status;
    this.at = this.now();
  }

  /** The last status seen, if any (for the bench and status). */
  last(): ThrottleStatus | undefined {
    return this.status;
  }

  /** Points available now, as projected from the last answer; unknown before the first. */
  available(): number | undefined {
    const s = this.status;
    if (!s) return undefined;
    return Math.min(s.maximumAvailable, s.currentlyAvailable + (s.restoreRate * (this.now() - this.at)) / 1000);
  }

  /** The bucket's size, when known: no query may ask more. */
  size(): number | undefined {
    return this.status?.maximumAvailable;
  }

  /** Milliseconds to wait before a query of `cost` points fits (0: now). */
  waitMs(cost: number): number {
    const s = this.status;
    const have = this.available();
    if (!s || have === undefined || have >= cost) return 0;
    return Math.ceil(((Math.min(cost, s.maximumAvailable) - have) / Math.max(s.restoreRate, 1)) * 1000);
  }
}
