import { logRepeated, reasonOf } from '../../log/log-throttle.js';
import { messageOf } from '../../errors/message-of.js';
import { finish, look, type DispatcherOptions, type Open, type State } from './turn-state.js';

export type { DispatcherOptions, Turn } from './turn-state.js';

/**
 * A process's turns: which accounts it has open, taken from the deployment's ready set (ready-set.ts) as its places
 * allow (WORKER_ACCOUNTS_OPEN), closed when they have had nothing to do for ACCOUNT_IDLE_SECONDS (at once when the
 * process is full and others wait), and handed back when
 * they have held their place ACCOUNT_TURN_SECONDS while others wait for one (or kept open, charged, when the ready
 * set would give them the place straight back). An account with nothing to do is open nowhere: it holds no connection,
 * worker or timer. One claim loop and one look a second per process, whatever the number of accounts.
 */

export interface Dispatcher {
  /** Says the account has work (a push, an import, a pull, a retry): it takes a turn somewhere soon. */
  mark(account: string): Promise<void>;
  /** Looks at the ready set now (a mark made in this process). */
  nudge(): void;
  /** The accounts open in this process. */
  open(): string[];
  /** Closes an account's turn here, if open (an account removed or changed): it is handed back with its work. */
  close(account: string): Promise<void>;
  /** Stops claiming, and closes every open account (their active jobs share one grace period). */
  stop(): Promise<void>;
}

/**
 * Claims one account: from the shard whose lowest pass is lowest, then the next lowest (a shard's lowest may be
 * leased); answers whether it got one. On a cluster the heads are read one shard at a time (their own hash tags).
 */
async function claimOne(s: State): Promise<boolean> {
  const { o } = s;
  const now = Date.now();
  for (const [name, until] of s.skip) if (until <= now) s.skip.delete(name);
  const skipped = [...s.open.keys(), ...s.skip.keys()];
  const heads = await o.ready.heads();
  const order = heads.map((pass, shard) => ({ pass, shard })).filter((h) => Number.isFinite(h.pass));
  order.sort((a, b) => a.pass - b.pass);
  for (const { shard } of order) {
    const name = await o.ready.claim(shard, now, o.leaseMs, skipped);
    if (name === undefined) continue;
    if (!o.knows(name)) {
      s.skip.set(name, now + 10_000);
      await o.ready.release(name, 0, true);
      return true;
    }
    begin(s, name, now);
    return true;
  }
  return false;
}

/** Opens a claimed account's turn; one that cannot start is handed back and skipped here for a while. */
function begin(s: State, name: string, now: number): void {
  const entry: Open = { name, since: now, starting: Promise.resolve(undefined) };
  entry.starting = s.o.startTurn(name).then(
    (turn) => (entry.turn = turn),
    async (err: unknown) => {
      s.o.logger.error(
        { account: name, err: messageOf(err) },
        `account ${name}: its turn could not start (${messageOf(err)}); tried again`,
      );
      s.open.delete(name);
      s.skip.set(name, Date.now() + 10_000);
      await s.o.ready.release(name, 0, true).catch((e: unknown) => s.failed(e, 'a turn not started could not be handed back'));
      return undefined;
    },
  );
  s.open.set(name, entry);
}

interface Looks {
  /** Brings the next look forward to `fullLookMs` after the last, when this process is full. */
  soon(): void;
  stop(): void;
}

/**
 * The looks at the open accounts (turn-state.ts's `look`), one at a time: once a second (`lookMs`), and every
 * `fullLookMs` while this process is full and accounts wait for a place, so that one with nothing to do hands its
 * place over at once rather than within a second (a live order beside busy accounts waits for it).
 */
function startLooks(s: State): Looks {
  const everyMs = s.o.lookMs ?? 1000;
  const fullMs = s.o.fullLookMs;
  let timer: NodeJS.Timeout | undefined;
  let dueAt = Infinity;
  let last = 0;
  let running = false;
  let stopped = false;
  const plan = (ms: number) => {
    if (stopped || Date.now() + ms >= dueAt) return;
    clearTimeout(timer);
    dueAt = Date.now() + ms;
    timer = setTimeout(run, ms);
    timer.unref();
  };
  function run(): void {
    dueAt = Infinity;
    if (running) return plan(fullMs);
    running = true;
    last = Date.now();
    void look(s)
      .catch((err: unknown) => (s.failed(err, 'could not look at the open accounts'), false))
      .then((waiting) => {
        running = false;
        plan(waiting ? fullMs : everyMs);
      });
  }
  plan(everyMs);
  return {
    soon: () => {
      if (s.open.size >= s.o.places) plan(Math.max(0, last + fullMs - Date.now()));
    },
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

export function startDispatcher(o: DispatcherOptions): Dispatcher {
  let stopped = false;
  let nudge: (() => void) | undefined;
  // An empty ready set is looked at less and less often, up to once a second (a mark made in this process wakes it).
  let waitMs = o.pollMs;
  let looks: Looks | undefined;
  const s: State = {
    o,
    open: new Map(),
    skip: new Map(),
    failed: (err, what) =>
      logRepeated(o.logger, 'warn', `dispatch:${reasonOf(err)}`, { err: messageOf(err) }, `${what} (Redis?); tried again`),
    nudge: () => {
      waitMs = o.pollMs;
      nudge?.();
      // Full here: the account marked may wait for a place, which an idle one here would give at the next look.
      looks?.soon();
    },
  };
  const claimLoop = async () => {
    while (!stopped) {
      let got = false;
      if (s.open.size < o.places) got = await claimOne(s).catch((err: unknown) => (s.failed(err, 'could not claim an account'), false));
      waitMs = got ? o.pollMs : Math.min(waitMs * 2, Math.max(o.pollMs, 1000));
      if (got) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        nudge = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      nudge = undefined;
    }
  };
  looks = startLooks(s);
  const claiming = claimLoop();

  return {
    async mark(account) {
      await o.ready.mark(account);
      s.nudge();
    },
    nudge: s.nudge,
    open: () => [...s.open.keys()],
    async close(account) {
      const e = s.open.get(account);
      if (e) await finish(s, e, 'closed');
    },
    async stop() {
      stopped = true;
      looks?.stop();
      nudge?.();
      await claiming;
      await Promise.all([...s.open.values()].map((e) => finish(s, e, 'closed')));
    },
  };
}
