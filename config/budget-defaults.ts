/**
 * The defaults of the request budgets and of how the program shares them with the account's other clients
 * (docs/service-client.md, "Budgets" and "Sharing the budget"; docs/budget-start.md). Part of `defaults`
 * (config/defaults.ts), where the program reads them.
 */
export const budgetDefaults = {
  /** POST requests a minute, shared by every process of one account. */
  postPerMinute: 120,
  /** GET requests a minute (collection GETs count here too). */
  getPerMinute: 120,
  /** Collection GETs an hour. */
  collectionPerHour: 300,
  /** Requests a minute of every kind together (INVENTORY_REQUESTS_PER_MINUTE): none unless the account has such a limit. */
  requestsPerMinute: undefined as number | undefined,
  /** Fraction of each budget the client allows itself, to absorb clock and network jitter. */
  budgetHeadroom: 0.98,
  /**
   * Whether the program lowers its rate when another client of the account spends the same budget, and climbs back
   * when it stops (INVENTORY_ADAPTIVE_RATE; off paces to the configured budgets alone, as before).
   */
  adaptiveRate: true,
  /** Least share of a configured budget the program keeps when others spend it, in percent (INVENTORY_RATE_FLOOR_PERCENT). */
  rateFloorPercent: 10,
  /**
   * Share of a configured budget a fresh process starts at when nothing was learnt of the account's other clients, in
   * percent (INVENTORY_RATE_START_PERCENT; 100: no slow start). From it the share rises by rateStartStep every
   * rateStartStepMs while no 429 comes, to the full budget or to the first 429 (docs/budget-start.md).
   */
  rateStartPercent: 50,
  /** Slow start's rise while no 429 comes, in % of the budget a minute (INVENTORY_RATE_START_RISE_PERCENT; docs/budget-start.md). */
  rateStartRisePercent: 300,
  /** Time between the slow start's steps (ms), or the service's window when that is shorter (learnt from its resets). */
  rateStartStepMs: 1_000,
  /** Part of what the slow start's pace allowed over the last step that the program must have sent for the next (idle: no rise). */
  rateStartProof: 0.95,
  /** Part of its share a lane keeps at a crossing (first 429 of a slow start or at the full budget) with a reset within 2 s. */
  rateCrossKeep: 0.6,
  /** A 429's hold while a lane yields after its crossing (ms; docs/budget-start.md, "After the crossing"). */
  rateYieldStepMs: 3_000,
  /**
   * Requests sent together while a lane's share is read from 429s alone (headers on 429s only): a token bucket the
   * others drain then refuses this program first (docs/budget-start.md, "Pulses"). 1: evenly spaced.
   */
  ratePulse: 2,
  /** Windows of a lane a learnt share is remembered for after its last use (the budget-learnt key's life, at least 30 min). */
  learntShareWindows: 10,
  /** Factor a lane's share is multiplied by on a 429 while the program paces within its budget (once per window of the service). */
  shareDecrease: 0.7,
  /** Share added back per step while nothing says the others still spend it (a fraction of the configured budget). */
  shareStep: 0.05,
  /** Steps per window of a lane (one every 5 s for a budget a minute). */
  shareStepsPerWindow: 12,
} as const;
