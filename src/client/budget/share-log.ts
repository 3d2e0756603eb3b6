import type { Budgets } from '../../../config/read-config.js';
import type { ShareChange } from './share.js';
import { laneLimits, type BudgetLane } from './budget-lanes.js';
import type { Logger } from '../../log/logger.js';

/**
 * The log lines of the shared budget (share.ts): a warning when a lane reaches the floor, a line when it is
 * lowered (again by a tenth or more, or for another reason) and when it is back at the configured budget.
 */
export function logShareChanges(logger: Logger, budgets: Budgets, floorPercent: number): (c: ShareChange) => void {
  const limits = laneLimits(budgets);
  const logged = new Map<BudgetLane, ShareChange>();
  return (c) => {
    const l = limits[c.lane];
    if (!l) return;
    const unit = l.windowMs === 60_000 ? '/min' : '/h';
    const fields = {
      lane: c.lane,
      configured: `${l.limit}${unit}`,
      effective: `${Math.round(l.limit * budgets.headroom * c.factor)}${unit}`,
      sharePercent: Math.round(c.factor * 100),
      reason: c.reason,
      ...(c.otherPerMinute === null ? {} : { othersPerMinute: Math.round(c.otherPerMinute) }),
    };
    const last = logged.get(c.lane);
    if (c.reason === 'floor') {
      if (last?.reason !== 'floor') {
        logger.warn(
          fields,
          `the ${c.lane} budget's share left to this program is below INVENTORY_RATE_FLOOR_PERCENT (${floorPercent}%): ` +
            'holding the floor, so other clients of the account may be answered 429; ask who else spends it, or lower the floor',
        );
        logged.set(c.lane, c);
      }
      return;
    }
    if (c.factor >= 1) {
      if (last && last.factor < 1)
        logger.info(fields, `the ${c.lane} budget is all this program's again: back at the configured ${l.limit}${unit}`);
      logged.set(c.lane, c);
      return;
    }
    const lowered = c.factor < c.previous;
    if (lowered && (!last || last.reason !== c.reason || c.factor < last.factor * 0.9)) {
      const why =
        c.reason === 'service-limit'
          ? "the service's X-RateLimit-Limit is below the configured budget"
          : 'another client of the account spends the same budget' +
            (c.otherPerMinute === null ? ' (429 while this program was within it)' : ` (about ${Math.round(c.otherPerMinute)}/min)`);
      logger.info(fields, `${why}: ${c.lane} lowered to ${fields.effective}; it climbs back when the others stop`);
      logged.set(c.lane, c);
    } else logger.debug(fields, `${c.lane} share now ${fields.sharePercent}%`);
  };
}
