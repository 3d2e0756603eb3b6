import type { Budgets } from '../../config/read-config.js';
import { laneLimits, type BudgetLane } from '../client/budget/budget-lanes.js';
import { shareReasonText, type LaneShare } from '../client/budget/share-status.js';
import type { RequestClass } from '../client/service-api.js';

/** What explaining a wait reads: the lanes' shares and 429 holds as every process left them, and the share settings. */
export interface WaitFacts {
  /** Each lane's share (share-status.ts readShares). */
  shares(): Promise<Record<BudgetLane, LaneShare>>;
  /** Epoch ms until which a lane is held after a 429 (RequestBudget.stats().heldUntil). */
  holds(): Promise<Partial<Record<BudgetLane, number>>>;
  /** INVENTORY_ADAPTIVE_RATE, INVENTORY_RATE_START_PERCENT and INVENTORY_RATE_FLOOR_PERCENT. */
  adaptive: boolean;
  startPercent: number;
  floorPercent: number;
}

/** The setting of each lane, and its window in words. */
const SETTING: Record<BudgetLane, [name: string, per: string]> = {
  post: ['INVENTORY_POST_PER_MINUTE', 'a minute'],
  get: ['INVENTORY_GET_PER_MINUTE', 'a minute'],
  collection: ['INVENTORY_COLLECTION_PER_HOUR', 'an hour'],
  total: ['INVENTORY_REQUESTS_PER_MINUTE', 'a minute'],
};

/** "13 s", "2 min 10 s", "0.5 s". */
function seconds(ms: number): string {
  if (ms < 10_000) return `${Math.max(0.1, Math.round(ms / 100) / 10)} s`;
  const s = Math.round(ms / 1000);
  return s < 90 ? `${s} s` : `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
}

/** The lanes a request of the class spends (budget.ts): its own, a collection's `get` too, and `total` when set. */
function lanesOf(cls: RequestClass, budgets: Budgets): BudgetLane[] {
  const lanes: BudgetLane[] = cls === 'collection' ? ['collection', 'get'] : [cls];
  if (budgets.requestsPerMinute !== undefined) lanes.push('total');
  return lanes;
}

/**
 * Why a request of the class waits `waitMs`, for a person, after the command's name: "waits for the post budget: ...
 * Why: ... Setting: ...". The lane that binds is the one whose requests go out slowest now (its limit, headroom and share).
 */
export async function explainWait(cls: RequestClass, waitMs: number, budgets: Budgets, facts: WaitFacts): Promise<string> {
  const [shares, holds] = await Promise.all([facts.shares(), facts.holds()]);
  const limits = laneLimits(budgets);
  const pace = (lane: BudgetLane) => {
    const l = limits[lane]!;
    return l.windowMs / (l.limit * budgets.headroom * (shares[lane]?.factor ?? 1));
  };
  const lanes = lanesOf(cls, budgets).filter((lane) => limits[lane]);
  const lane = lanes.reduce((a, b) => (pace(b) > pace(a) ? b : a));
  const [setting, per] = SETTING[lane];
  const limit = limits[lane]!.limit;
  const everyMs = pace(lane);
  const perWindow = Math.round(limits[lane]!.windowMs / everyMs);
  const head =
    `waits for the ${lane} budget: about ${seconds(waitMs)} for this request, then one request every ${seconds(everyMs)} ` +
    `(${perWindow} ${per}) across every process of the account.`;
  const heldUntil = lanes.map((l) => holds[l] ?? 0).reduce((a, b) => Math.max(a, b), 0);
  return `${head}\n  ${why(lane, heldUntil, shares[lane], facts, `${setting}=${limit}`, per)}`;
}

/** The reason a lane binds now, and what changes it. */
function why(lane: BudgetLane, heldUntil: number, share: LaneShare | undefined, f: WaitFacts, setting: string, per: string): string {
  if (heldUntil > Date.now())
    return (
      `Why: the service answered 429 (over its limit): every process waits for its reset, at ${new Date(heldUntil).toISOString()}. ` +
      `It goes on by itself; if 429s keep coming, another client spends the budget: lower ${setting.split('=')[0]}.`
    );
  if (share && share.reason === 'slow-start')
    return (
      `Why: the slow start. Nothing is known yet of the account's other clients, so a process starts at ${f.startPercent}% of ` +
      `${setting} ${per} and rises a step every second while no 429 comes, to the full budget (under half a minute ` +
      'alone) or to the first 429, which tells what the others leave (docs/budget-start.md). ' +
      'Setting: INVENTORY_RATE_START_PERCENT=100 starts at the full budget, when nothing else spends it.'
    );
  if (share && share.reason !== 'configured')
    return (
      `Why: ${shareReasonText(share)}. This program takes what the others leave, at least INVENTORY_RATE_FLOOR_PERCENT ` +
      `(${f.floorPercent}%) of ${setting}. Setting: INVENTORY_ADAPTIVE_RATE=off paces to ${setting} alone.`
    );
  const share0 = f.adaptive ? '' : ' (INVENTORY_ADAPTIVE_RATE=off)';
  if (lane === 'collection')
    return (
      `Why: the collection hour: ${setting} ${per}${share0} is the account's whole allowance of collection reads. ` +
      `Setting: raise ${setting.split('=')[0]} if the service allows the account more.`
    );
  const name = setting.split('=')[0];
  return `Why: the budget itself, ${setting} ${per}${share0}. Setting: raise ${name} if the service allows the account more.`;
}
