import { z } from 'zod';
import type { BudgetSettings, BudgetWindow } from './sandbox-options.js';

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
});

export interface Refusal {
  limit: number;
  /** X-RateLimit-Reset, in the configured unit. */
  reset: number;
  cls: BudgetClass;
}

/** Fixed windows aligned on the epoch, one per class and one for all requests; off unless set. */
export class Budgets {
  private settings: BudgetSettings = {};
  private readonly used = new Map<BudgetClass, { start: number; count: number }>();

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

  /** Spends one request of each class, or answers the refusal (and spends nothing) when one is used up. */
  take(classes: readonly BudgetClass[], now: number): Refusal | undefined {
    for (const cls of classes) {
      const w = this.settings[cls];
      if (!w) continue;
      const u = this.usage(cls, w, now);
      if (u.count >= w.limit) {
        const end = u.start + w.windowMs;
        return { cls, limit: w.limit, reset: this.settings.resetUnit === 'ms' ? end : Math.ceil(end / 1000) };
      }
    }
    for (const cls of classes) {
      const w = this.settings[cls];
      if (w) this.usage(cls, w, now).count++;
    }
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
      const u = this.usage(cls, w, now);
      const remaining = Math.max(0, w.limit - u.count);
      const end = u.start + w.windowMs;
      if (!tightest || remaining < tightest.remaining)
        tightest = { limit: w.limit, remaining, reset: this.settings.resetUnit === 'ms' ? end : Math.ceil(end / 1000) };
    }
    if (!tightest) return undefined;
    return { 'x-ratelimit-limit': tightest.limit, 'x-ratelimit-remaining': tightest.remaining, 'x-ratelimit-reset': tightest.reset };
  }

  private usage(cls: BudgetClass, w: BudgetWindow, now: number) {
    const start = Math.floor(now / w.windowMs) * w.windowMs;
    let u = this.used.get(cls);
    if (!u || u.start !== start) {
      u = { start, count: 0 };
      this.used.set(cls, u);
    }
    return u;
  }
}
