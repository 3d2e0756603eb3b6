import type { WatchedAccount } from '../../app/accounts-watch.js';
import { pulledKinds } from '../../app/pulled-kinds.js';
import { messageOf } from '../../errors/message-of.js';
import { pullScheduleOf } from '../../feed/pulled-kind.js';
import type { Kind } from '../../kinds/kind.js';
import { logRepeated, reasonOf } from '../../log/log-throttle.js';
import { sampleFlow } from '../../ops/flow-metrics.js';
import { markMinute } from '../../ops/flow-minutes.js';
import type { PolledFeed } from '../../queue/dispatch/account-work.js';
import { redisKeys } from '../../redis/connection.js';
import { pulls, type HostProcess } from './account-host.js';

// The charts of the accounts of ACCOUNTS_FILE between their turns (issue 56). A closed account makes no service call
// (its budget counters and shares change only in a turn, which samples itself) and its polls keep its feeds caught
// up: its minute is "caught up, no requests", and no process samples it. Once a minute the sweep's process samples
// the closed accounts whose minute is not that (in trouble, or a polled stream behind: the sweep's read) and marks the
// minute as one the deployment ran (src/ops/flow-minutes.ts), for the charts to show the others' as such.

/** The account's polled streams as the sweep judges them behind: late a grace after their poll's period. */
export function polledFeeds(entry: WatchedAccount, kinds: readonly Kind[], graceMs: number): PolledFeed[] {
  if (!pulls(entry)) return [];
  const { config } = entry;
  const keys = redisKeys(config.redis.prefix);
  return pulledKinds({ config, kinds }, kinds).flatMap((k) => {
    if (k.feed.lag !== 'polled') return [];
    const pull = pullScheduleOf(k, config.schedule);
    return 'every' in pull ? [{ stateKey: keys.feedState(k.stream), lateAfterMs: pull.every * 1000 + graceMs }] : [];
  });
}

/**
 * The sweep's minute (its `minute`): samples the accounts named that are closed here (one open here samples itself),
 * one at a time, then marks the minute under `key`. A sample or the mark Redis refused is logged (the minute is then
 * left as it is: a gap rather than a minute told well).
 */
export function closedSamples(p: HostProcess, key: string): (accounts: string[], now: number) => Promise<void> {
  const streams = p.kinds.map((k) => k.stream);
  const polled = p.kinds.filter((k) => k.feed.lag === 'polled').map((k) => k.stream);
  const failed = (err: unknown) =>
    logRepeated(p.logger, 'debug', `flow-sample:${reasonOf(err)}`, { err: messageOf(err) }, 'chart sample not written (Redis?)');
  return async (accounts, now) => {
    try {
      for (const name of accounts) {
        const h = p.hosted.get(name);
        if (h && !h.parts) await sampleFlow(p.redis, h.entry.config.redis.prefix, streams, now);
      }
      await markMinute(p.redis, key, now, polled);
    } catch (err) {
      failed(err);
    }
  };
}
