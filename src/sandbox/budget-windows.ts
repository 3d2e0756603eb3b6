import type { BudgetWindow, WindowShape } from './sandbox-options.js';

/**
 * How a budget counts its requests (docs/sandbox-faults.md "Budgets"): fixed windows aligned on the epoch, fixed
 * windows at an offset from it, a sliding window (every request counts for `windowMs` after it), or a token bucket
 * (`limit` tokens a window, refilled continuously, holding at most `burst`).
 */
export interface WindowCounter {
  /** Requests (tokens) left now. */
  left(now: number): number;
  /** Spends one (call only when left(now) >= 1). */
  spend(now: number): void;
  /** When what is left next grows (epoch ms): the fixed window's end, the oldest request's, the next token. */
  resetAt(now: number): number;
}

class Fixed implements WindowCounter {
  private start = Number.NaN;
  private count = 0;
  constructor(
    private readonly w: BudgetWindow,
    private readonly offsetMs: number,
  ) {}
  private roll(now: number) {
    const start = Math.floor((now - this.offsetMs) / this.w.windowMs) * this.w.windowMs + this.offsetMs;
    if (start !== this.start) [this.start, this.count] = [start, 0];
  }
  left(now: number) {
    this.roll(now);
    return Math.max(0, this.w.limit - this.count);
  }
  spend(now: number) {
    this.roll(now);
    this.count++;
  }
  resetAt(now: number) {
    this.roll(now);
    return this.start + this.w.windowMs;
  }
}

class Sliding implements WindowCounter {
  /** Send times of the requests counted, oldest first (a ring would do; the limits are small). */
  private readonly times: number[] = [];
  private head = 0;
  constructor(private readonly w: BudgetWindow) {}
  private drop(now: number) {
    while (this.head < this.times.length && this.times[this.head]! <= now - this.w.windowMs) this.head++;
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times.splice(0, this.head);
      this.head = 0;
    }
  }
  left(now: number) {
    this.drop(now);
    return Math.max(0, this.w.limit - (this.times.length - this.head));
  }
  spend(now: number) {
    this.drop(now);
    this.times.push(now);
  }
  resetAt(now: number) {
    this.drop(now);
    return (this.times[this.head] ?? now) + this.w.windowMs;
  }
}

class TokenBucket implements WindowCounter {
  private tokens: number;
  private at = Number.NaN;
  private readonly perMs: number;
  constructor(
    w: BudgetWindow,
    private readonly size: number,
  ) {
    this.perMs = w.limit / w.windowMs;
    this.tokens = size;
  }
  private fill(now: number) {
    if (!Number.isNaN(this.at) && now > this.at) this.tokens = Math.min(this.size, this.tokens + (now - this.at) * this.perMs);
    if (Number.isNaN(this.at) || now > this.at) this.at = now;
  }
  left(now: number) {
    this.fill(now);
    return Math.floor(this.tokens);
  }
  spend(now: number) {
    this.fill(now);
    this.tokens -= 1;
  }
  resetAt(now: number) {
    this.fill(now);
    const frac = this.tokens - Math.floor(this.tokens);
    return now + Math.ceil((1 - frac) / this.perMs);
  }
}

/** The counter of one budget, of the shape asked (default fixed). */
export function windowCounter(w: BudgetWindow, shape: WindowShape = 'fixed', o: { offsetMs?: number; burst?: number } = {}): WindowCounter {
  switch (shape) {
    case 'offset':
      return new Fixed(w, (o.offsetMs ?? Math.round(w.windowMs / 3)) % w.windowMs);
    case 'sliding':
      return new Sliding(w);
    case 'token-bucket':
      return new TokenBucket(w, Math.max(1, o.burst ?? Math.ceil(w.limit / 10)));
    default:
      return new Fixed(w, 0);
  }
}
