import type { OutStream } from '../app/cli-io.js';
import type { RequestBudget } from '../client/budget/budget.js';
import type { RequestClass } from '../client/service-api.js';
import { explainWait, type WaitFacts } from './explain-wait.js';
import { readShares } from '../client/budget/share-status.js';
import type { RedisConnection as Redis, RedisKeys } from '../redis/connection.js';
import type { Budgets, Config } from '../../config/read-config.js';
import { createProgress } from './progress.js';

/** A wait shorter than this is not worth a word. */
const QUIET_MS = 2000;

/** "13 s", "2 min 10 s". */
function duration(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  return s < 90 ? `${s} s` : `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
}

/** A class's budget as the settings name it: "the collection budget (INVENTORY_COLLECTION_PER_HOUR=300 an hour)". */
export function budgetName(cls: RequestClass, b: Budgets): string {
  const [setting, limit, per] =
    cls === 'collection'
      ? ['INVENTORY_COLLECTION_PER_HOUR', b.collectionPerHour, 'an hour']
      : cls === 'post'
        ? ['INVENTORY_POST_PER_MINUTE', b.postPerMinute, 'a minute']
        : ['INVENTORY_GET_PER_MINUTE', b.getPerMinute, 'a minute'];
  const total = b.requestsPerMinute === undefined ? '' : `, within INVENTORY_REQUESTS_PER_MINUTE=${b.requestsPerMinute}`;
  return `the ${cls} budget (${setting}=${limit} ${per}${total}, shared by every process of the account)`;
}

/**
 * Before a command that reads collections: when the next read must wait, one line naming the budget and an estimate
 * (for `reads` collections, when known: what the last reconcile read). Nothing when it goes at once.
 */
export async function announceCollectionWait(
  out: OutStream,
  budget: RequestBudget | undefined,
  budgets: Budgets | undefined,
  o: { command: string; reads?: number },
): Promise<void> {
  if (!budget?.limited || !budgets) return;
  const { waitMs, everyMs } = await budget.peek('collection');
  if (waitMs < QUIET_MS) return;
  const reads = o.reads ?? 0;
  const all = reads > 1 ? `; about ${duration(waitMs + (reads - 1) * everyMs)} for the ${reads} collections the last reconcile read` : '';
  out.write(
    `${o.command} waits for ${budgetName('collection', budgets)}: the next collection read in about ${duration(waitMs)}, ` +
      `then one every ${duration(everyMs)}${all} (inventory-sync status shows the budget's use)\n`,
  );
}

/**
 * While a command runs: once a request of it waits for budget, its progress (collection reads made, of about
 * `reads`) and each wait with the budget it waits on; a bar on a terminal, plain lines otherwise. Nothing while no
 * request waits.
 */
export function watchBudgetWaits(
  out: OutStream,
  budget: RequestBudget | undefined,
  budgets: Budgets | undefined,
  o: { title: string; reads?: number; facts?: WaitFacts },
): { stop(): void } {
  if (!budget || !budgets) return { stop: () => undefined };
  const told = o.facts ? explainBudgetWaits(out, budget, budgets, { command: o.title, facts: o.facts }) : undefined;
  const bar = createProgress(out, `${o.title}: collection reads`);
  const timers = new Set<NodeJS.Timeout>();
  let started = false;
  let taken = 0;
  let done = 0;
  let detail = '';
  const show = () => started && bar.update(done, Math.max(o.reads ?? 0, taken), detail);
  const unwatch = budget.watch(({ cls, waitMs }) => {
    if (cls === 'collection') taken++;
    if (waitMs >= QUIET_MS) {
      started = true;
      detail = `waiting ${duration(waitMs)} for ${budgetName(cls, budgets)}`;
    }
    show();
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (cls === 'collection') done++;
      if (waitMs >= QUIET_MS) detail = '';
      show();
    }, waitMs);
    timer.unref();
    timers.add(timer);
  });
  return {
    stop() {
      unwatch();
      told?.stop();
      for (const t of timers) clearTimeout(t);
      bar.stop();
    },
  };
}

/**
 * The first time a request of the command waits on a budget (QUIET_MS or more), once per class: one paragraph naming
 * the budget, why it binds now (the slow start, another client's share, a 429, the collection hour, the budget itself),
 * about how long this request waits and at what pace the rest go, and the setting that changes it (explain-wait.ts).
 */
export function explainBudgetWaits(
  out: OutStream,
  budget: RequestBudget | undefined,
  budgets: Budgets | undefined,
  o: { command: string; facts: WaitFacts },
): { stop(): void } {
  if (!budget?.limited || !budgets) return { stop: () => undefined };
  const told = new Set<RequestClass>();
  let stopped = false;
  const unwatch = budget.watch(({ cls, waitMs }) => {
    if (waitMs < QUIET_MS || told.has(cls)) return;
    told.add(cls);
    void explainWait(cls, waitMs, budgets, o.facts).then(
      (text) => {
        if (!stopped) out.write(`\n${o.command} ${text}\n`);
      },
      () => undefined,
    );
  });
  return {
    stop() {
      stopped = true;
      unwatch();
    },
  };
}

/** What explaining a wait reads, from a running command's parts (undefined without a service or a budget). */
export function waitFactsOf(d: { redis: Redis; keys: RedisKeys; budget?: RequestBudget; config: Config }): WaitFacts | undefined {
  const rate = d.config.service?.adaptiveRate;
  if (!d.budget || !rate) return undefined;
  const budget = d.budget;
  return {
    shares: () => readShares(d.redis, d.keys),
    holds: async () => (await budget.stats()).heldUntil,
    adaptive: rate.enabled,
    startPercent: rate.startPercent,
    floorPercent: rate.floorPercent,
  };
}
