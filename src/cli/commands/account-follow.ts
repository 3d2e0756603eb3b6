import type { AccountsChange, WatchedAccount } from '../../app/accounts-watch.js';
import { startWhileRedisRefuses } from '../../app/connect-redis.js';
import { messageOf } from '../../errors/message-of.js';
import { readySet } from '../../queue/dispatch/ready-set.js';
import { closeParts, pullsOf, pulls, type Hosted, type HostProcess } from './account-host.js';

// The accounts of ACCOUNTS_FILE in a `worker` process, as the file says: added, removed, changed (docs/accounts.md).

/** When a process last said it waits for Redis to take writes: its accounts start at once, and it says so once for all. */
const waitTold = new WeakMap<HostProcess, { at: number }>();

/** Takes an account in: an entry, and its pulls (account-pulls.ts) when it pulls a feed; its work takes turns. */
export async function register(p: HostProcess, entry: WatchedAccount): Promise<void> {
  const h: Hosted = { entry };
  p.hosted.set(entry.name, h);
  if (pulls(entry)) {
    try {
      // Its scheduled pulls are written as it starts: a full or read-only Redis is waited for, as one account's start
      // waits (a process restarted while Redis is full must not exit). A part that failed leaves nothing open.
      await startWhileRedisRefuses(() => pullsOf(p, h), {
        waitMs: entry.config.redisStartWaitSeconds * 1000,
        logger: p.logger,
        signal: p.io.stop,
        told: waitTold.get(p) ?? waitTold.set(p, { at: 0 }).get(p)!,
      });
    } catch (err) {
      p.hosted.delete(entry.name);
      throw err;
    }
  }
  p.logger.info(
    { account: entry.name, prefix: entry.config.redis.prefix, streams: p.kinds.map((k) => k.stream), pulls: pulls(entry) ? 'on' : 'off' },
    `account ${entry.name} started${pulls(entry) ? '' : ' (no UPSTREAM_URL: nothing is pulled; imported and pushed records only)'}`,
  );
}

/** Lets an account go: its turn ends (active jobs get the grace period), its parts close; its data stays in Redis. */
export async function unregister(p: HostProcess, name: string, removed: boolean): Promise<void> {
  const h = p.hosted.get(name);
  if (!h) return;
  p.hosted.delete(name);
  try {
    await p.dispatcher?.close(name);
    await closeParts(p, h, removed);
    if (removed) {
      const { base, shards } = h.entry.config.dispatch;
      await readySet(p.redis, base, shards).forget(name);
    }
  } finally {
    p.logger.info({ account: name }, `account ${name} stopped`);
  }
}

/**
 * Makes the accounts what the file says now: a removed account stops, a changed one restarts with its new settings,
 * an added one starts, and one that could not start before is tried again.
 */
export async function follow(p: HostProcess, change: AccountsChange): Promise<void> {
  const gone = new Set(change.removed.map((a) => a.name));
  for (const a of change.removed)
    p.logger.info(
      { account: a.name },
      `account ${a.name}: no longer in ACCOUNTS_FILE; stopping it (jobs in progress get the grace period, ` +
        `its data stays in Redis until \`inventory-sync accounts purge ${a.name}\`)`,
    );
  for (const a of change.changed)
    p.logger.info({ account: a.name }, `account ${a.name}: its settings changed in ACCOUNTS_FILE; restarting it with them`);
  const start = (a: WatchedAccount) =>
    register(p, a).catch((err: unknown) => {
      p.logger.error(
        { account: a.name, err: messageOf(err) },
        `account ${a.name} could not start: ${messageOf(err)}; it is tried again when ACCOUNTS_FILE changes`,
      );
    });
  const stop = (name: string) =>
    unregister(p, name, gone.has(name)).catch((err: unknown) =>
      p.logger.warn({ account: name, err: messageOf(err) }, `account ${name} did not stop cleanly`),
    );
  const again = new Map(change.changed.map((a) => [a.name, a]));
  const stopping = [...change.removed, ...change.changed].filter((a) => p.hosted.has(a.name)).map((a) => a.name);
  // An added account starts at once; a changed one once its old self stopped (its jobs' grace period).
  await Promise.all([
    ...stopping.map(async (name) => {
      await stop(name);
      const a = again.get(name);
      if (a) await start(a);
    }),
    ...change.accounts.filter((a) => !p.hosted.has(a.name) && !stopping.includes(a.name)).map(start),
  ]);
}
