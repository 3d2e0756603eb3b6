import { z } from 'zod';
import type { BudgetSettings } from './sandbox-options.js';
import { windowCounter, type WindowCounter } from './budget-windows.js';

/** `total` is spent by every request, beside its own class (docs/service.md "Budgets"). */
export type BudgetClass = 'get' | 'post' | 'collection' | 'total';

const windowSchema = z.object({ limit: z.number().int().nonnegative(), windowMs: z.number().int().positive() }).nullish();
export const budgetSettingsSchema = z.object({
  post: windowSchema,
  get: windowSchema,
  collection: windowSchema,
  total: windowSchema,
  resetUnit: z.enum(['s', 'ms']).optional(),
  rateHeaders: z.enum(['every-answer', 'on-429']).optional(),
  window: z.enum(['fixed', 'offset', 'sliding', 'token-bucket']).optional(),
  offsetMs: z.number().int().nonnegative().optional(),
  burst: z.number().int().positive().optional(),
});

export interface Refusal {
  limit: number;
  /** X-RateLimit-Reset, in the configured unit. */
  reset: number;
  cls: BudgetClass;
}

/** One budget per class and one for all requests, counted as `window` says (fixed windows by default); off unless set. */
export class Budgets {
  private settings: BudgetSettings = {};
  private readonly used = new Map<BudgetClass, WindowCounter>();

  set(settings: BudgetSettings): void {
    this.settings = { ...settings };
    this.used.clear();
  }

  get(): BudgetSettings {
    return { ...this.settings };
  }

  get active(): boolean {
    return Boolean(this.settings.get || this.settings.post || this.settings.collection || this.settings.total);
  }

  /** Whether a request of these classes spends any budget (one of them has a window). */
  spends(classes: readonly BudgetClass[]): boolean {
    return classes.some((cls) => Boolean(this.settings[cls]));
  }

  /** Spends one request of each class, or answers the refusal (and spends nothing) when one is used up. */
  take(classes: readonly BudgetClass[], now: number): Refusal | undefined {
    for (const cls of classes) {
      const w = this.settings[cls];
      if (!w) continue;
      const u = this.counter(cls);
      if (u && u.left(now) < 1) return { cls, limit: w.limit, reset: this.resetOf(u.resetAt(now)) };
    }
    for (const cls of classes) this.counter(cls)?.spend(now);
    return undefined;
  }

  /**
   * What is left of the tightest of `classes` (after `take`), as a real service tells it on every answer:
   * X-RateLimit-Limit, -Remaining and -Reset; none when no class of the request has a budget, or when the headers
   * come on 429s only (`rateHeaders: 'on-429'`).
   */
  headers(classes: readonly BudgetClass[], now: number): Record<string, number> | undefined {
    if (this.settings.rateHeaders === 'on-429') return undefined;
    let tightest: { limit: number; remaining: number; reset: number } | undefined;
    for (const cls of classes) {
      const w = this.settings[cls];
      if (!w) continue;
      const u = this.counter(cls)!;
      const remaining = u.left(now);
      if (!tightest || remaining < tightest.remaining) tightest = { limit: w.limit, remaining, reset: this.resetOf(u.resetAt(now)) };
    }
    if (!tightest) return undefined;
    return { 'x-ratelimit-limit': tightest.limit, 'x-ratelimit-remaining': tightest.remaining, 'x-ratelimit-reset': tightest.reset };
  }

  private resetOf(at: number): number {
    return this.settings.resetUnit === 'ms' ? at : Math.ceil(at / 1000);
  }

  private counter(cls: BudgetClass): WindowCounter | undefined {
    const w = this.settings[cls];
    if (!w) return undefined;
    let u = this.used.get(cls);
    if (!u) {
      const s = this.settings;
      u = windowCounter(w, s.window, { offsetMs: s.offsetMs, burst: s.burst });
      this.used.set(cls, u);
    }
    return u;
  }
}
