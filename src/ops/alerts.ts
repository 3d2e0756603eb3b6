import type { Queue } from 'bullmq';
import { forAccount } from '../errors/error-hints.js';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { redact, type Logger } from '../log/logger.js';
import { readFeedState } from '../feed/feed-state.js';
import { foundInLastHour } from '../feed/store-found.js';
import { redisKeys } from '../redis/connection.js';
import type { StreamName } from '../records/stream-name.js';
import { laggingSeconds } from './feed-lag.js';
import { claimAlert, releaseAlert, type BreakerState } from '../queue/hold/refusal-state.js';
import { messageOf } from '../errors/message-of.js';
import { startLooking } from '../time/serial-look.js';
import { defaults } from '../../config/defaults.js';
import { claimEndAlert, claimOutageAlert, releaseOutageAlert } from '../queue/hold/outage-state.js';
import { isHeld, readHolds, type HoldReport } from '../queue/hold/hold-report.js';
import { logRepeated, reasonOf } from '../log/log-throttle.js';
import type { FeedPart } from '../feed/feed-kind.js';
import { callAlerts } from './call-alerts.js';
import { waitAlerts } from './wait-alerts.js';

export interface AlertSettings {
  /** Where the JSON alert is POSTed (Slack-compatible `{"text": ...}`). A secret: it is never logged. */
  webhookUrl: string;
  /** Alert when a stream has been behind longer than this. */
  lagSeconds: number;
  /** At most one alert per reason in this many seconds, across every process of the prefix. */
  intervalSeconds: number;
  /** A service outage lasting this long is told, and then its end (OUTAGE_ALERT_SECONDS). Default defaults.outageAlertSeconds. */
  outageSeconds?: number;
  /** A record waiting this long for a missing reference is told, once per reference (WAIT_ALERT_HOURS). Default defaults.waitAlertHours. */
  waitHours?: number;
}

export interface AlertDeps {
  redis: Redis;
  prefix: string;
  queues: { get(stream: StreamName): Pick<Queue, 'keys' | 'getJob' | 'getJobCounts'> };
  settings: AlertSettings;
  logger: Logger;
  /** Values no alert may carry (redacted if ever they appear). */
  secrets: string[];
  /** The streams to watch, each with how its lag is judged. */
  kinds: readonly { stream: StreamName; feed: Pick<FeedPart, 'lag'> }[];
  /** The account of ACCOUNTS_FILE the alerts are about (config.accountName), named in each; none without the file. */
  account?: string;
}

/** One alert as sent: why (its reason is what the interval is counted per) and the text. */
export interface Alert {
  reason: string;
  text: string;
}

/** An alert told once per cause, claimed in Redis; `release` gives the claim back when the send fails. */
type ClaimedAlert = { alert: Alert; release: () => Promise<void> };

const k = (prefix: string) => ({
  /** Failures up to this time (epoch ms) have been told of, per stream (the sweep counts those past it). */
  seen: (stream: string) => redisKeys(prefix).alertFailedSeen(stream),
  /** Present while a reason may not alert again (expires after the interval). */
  gate: (reason: string) => `${prefix}:alert:sent:${reason}`,
});

/** How every alert begins: the program, the account when there are several, and the prefix. */
export function alertHead(prefix: string, account: string | undefined): string {
  return account === undefined ? `inventory-sync (${prefix})` : `inventory-sync, account ${account} (${prefix})`;
}

const minutes = (s: number) => (s < 120 ? `${s} s` : `${Math.round(s / 60)} min`);

/** New failed jobs of a stream since the last alert about them; the first look only sets the mark. */
async function failureAlert(d: AlertDeps, stream: StreamName, now: number): Promise<{ alert: Alert; seenUntil: number } | undefined> {
  const keys = k(d.prefix);
  const queue = d.queues.get(stream);
  if ((await d.redis.set(keys.seen(stream), String(now), 'NX')) === 'OK') return undefined;
  const since = Number((await d.redis.get(keys.seen(stream))) ?? now);
  const failedKey = queue.keys.failed!;
  const count = await d.redis.zcount(failedKey, `(${since}`, '+inf');
  if (count === 0) return undefined;
  const ids = await d.redis.zrevrangebyscore(failedKey, '+inf', `(${since}`, 'LIMIT', 0, 3);
  const examples = await Promise.all(ids.map(async (id) => `${id}: ${((await queue.getJob(id))?.failedReason ?? '').slice(0, 200)}`));
  const text =
    `${alertHead(d.prefix, d.account)}: ${count} ${stream} job${count === 1 ? '' : 's'} failed since ${new Date(since).toISOString()}. ` +
    `Latest: ${examples.join(' | ')}. See: inventory-sync jobs list --state failed --stream ${stream}`;
  return { alert: { reason: `failures:${stream}`, text }, seenUntil: now };
}

async function lagAlert(d: AlertDeps, kind: AlertDeps['kinds'][number], now: number): Promise<Alert | undefined> {
  const stream = kind.stream;
  const state = await readFeedState(d.redis, redisKeys(d.prefix), stream);
  const lag = laggingSeconds(state, now, kind.feed.lag);
  if (lag === undefined || lag <= d.settings.lagSeconds) return undefined;
  const why = state.lastError ? ` Last pull failed: ${state.lastError.slice(0, 200).replace(/\.?$/, '.')}` : '';
  return {
    reason: `lag:${stream}`,
    text:
      `${alertHead(d.prefix, d.account)}: the ${stream} feed is ${minutes(lag)} behind ` +
      `(limit ${minutes(d.settings.lagSeconds)}).${why} See: inventory-sync status`,
  };
}

/** A stream held for refusals, not yet told: told once per pause, by whichever process claims it first. */
async function pauseAlert(d: AlertDeps, b: BreakerState): Promise<{ alert: Alert; release: () => Promise<void> } | undefined> {
  const keys = redisKeys(d.prefix);
  const stream = b.stream;
  if (!b.paused || b.alerted || !(await claimAlert(d.redis, keys, stream))) return undefined;
  const waiting = await d.queues.get(stream).getJobCounts('waiting', 'delayed', 'prioritized');
  const n = (waiting.waiting ?? 0) + (waiting.delayed ?? 0) + (waiting.prioritized ?? 0);
  const text =
    `${alertHead(d.prefix, d.account)}: the ${stream} stream is PAUSED since ${b.since}: ` +
    `${b.refusals} refusals about the account in a row, the last ${(b.reason ?? '').slice(0, 200)}. ` +
    `No job runs and none is pulled; ${n} job${n === 1 ? '' : 's'} wait, none lost. ` +
    `Fix the cause, then: inventory-sync resume --stream ${stream}`;
  return { alert: { reason: `paused:${stream}`, text }, release: () => releaseAlert(d.redis, keys, stream) };
}

/**
 * The hold for `outage`, the service down for everything (src/queue/hold/): told once when it has lasted
 * `outageSeconds`, and once when an outage that was told ends, with how long it lasted and how many jobs waited. Each
 * claimed in Redis, so one process tells it.
 */
async function outageAlert(d: AlertDeps, holds: HoldReport, now: number): Promise<ClaimedAlert | undefined> {
  const keys = redisKeys(d.prefix);
  const o = holds.outage;
  const limit = d.settings.outageSeconds ?? defaults.outageAlertSeconds;
  if (o.open && o.since && !o.alerted && now - Date.parse(o.since) >= limit * 1000) {
    if (!(await claimOutageAlert(d.redis, keys))) return undefined;
    const n = await waitingJobs(d);
    const lasted = minutes(Math.round((now - Date.parse(o.since)) / 1000));
    const text =
      `${alertHead(d.prefix, d.account)}: the service has been DOWN since ${o.since} (${lasted}): ${(o.reason ?? '').slice(0, 200)}. ` +
      `Every stream holds: no job runs, none is pulled, none spends an attempt; ${n} job${n === 1 ? '' : 's'} wait, none lost. ` +
      'One read probes it now and then (OUTAGE_PROBE_MAX_SECONDS apart at most); work goes on by itself when it answers. ' +
      'See: inventory-sync status';
    return { alert: { reason: 'outage', text }, release: () => releaseOutageAlert(d.redis, keys, 'start') };
  }
  const last = o.open ? undefined : holds.lastOutage;
  if (!last?.alerted || last.endTold || !(await claimEndAlert(d.redis, keys))) return undefined;
  const text =
    `${alertHead(d.prefix, d.account)}: the service answers again since ${last.endedAt}, after ${minutes(last.seconds)} down; ` +
    `${last.waited} job${last.waited === 1 ? '' : 's'} waited and now run, none lost. Nothing to do.`;
  return { alert: { reason: 'outage-ended', text }, release: () => releaseOutageAlert(d.redis, keys, 'end') };
}

/** Jobs waiting in every watched stream (waiting, delayed, prioritized). */
async function waitingJobs(d: AlertDeps): Promise<number> {
  const counts = await Promise.all(d.kinds.map((kind) => d.queues.get(kind.stream).getJobCounts('waiting', 'delayed', 'prioritized')));
  return counts.reduce((n, c) => n + (c.waiting ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0), 0);
}

/** Sends an alert told once per cause (its claim in Redis); a failed send gives the claim back for the next look. */
async function sendClaimed(d: AlertDeps, claimed: { alert: Alert; release: () => Promise<void> }, sent: Alert[]): Promise<void> {
  const text = redact(claimed.alert.text, d.secrets);
  try {
    await postAlert(d.settings.webhookUrl, text, d.account);
    d.logger.info({ reason: claimed.alert.reason }, 'alert sent');
    sent.push({ reason: claimed.alert.reason, text });
  } catch (err) {
    await claimed.release();
    logRepeated(
      d.logger,
      'warn',
      `alert-post:${reasonOf(err)}`,
      { alert: claimed.alert.reason, err: messageOf(err) },
      'alert not sent: check ALERT_WEBHOOK_URL; trying again at the next look',
    );
  }
}

/**
 * POSTs `{"text": ...}` (and `"account"` when there are several, its commands then with `--account`); throws on a
 * network error or a non-2xx answer.
 */
export async function postAlert(url: string, text: string, account?: string): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(account === undefined ? { text } : { text: forAccount(text, account), account }),
    signal: AbortSignal.timeout(10_000),
  });
  await res.arrayBuffer().catch(() => undefined);
  if (!res.ok) throw new Error(`the webhook answered ${res.status}`);
}

/** A store's pull found more than a few order changes in the last hour that no webhook brought: the webhooks seem lost. */
async function missedWebhooksAlert(d: AlertDeps, stream: StreamName, now: number): Promise<Alert | undefined> {
  const found = await foundInLastHour(d.redis, redisKeys(d.prefix), stream, now);
  if (found <= defaults.shopifyMissedAlert) return undefined;
  return {
    reason: `missed-webhooks:${stream}`,
    text:
      `${alertHead(d.prefix, d.account)}: the store pull found ${found} ${stream} changes in the last hour that no webhook brought: ` +
      'the webhook subscriptions may be gone or the receiver unreachable. The pull still syncs them (later). ' +
      'See: inventory-sync check (it lists the subscriptions; --register-webhooks makes the missing ones)',
  };
}

/**
 * One look: per stream, new failures and a lag over the limit each become an alert, sent unless the same reason was
 * sent within the interval (a Redis key with that life, so several workers send one). Answers what was sent.
 */
export async function checkAlerts(d: AlertDeps, now = Date.now()): Promise<Alert[]> {
  const sent: Alert[] = [];
  // Every hold, read once for the look.
  const holds = await readHolds(
    d.redis,
    redisKeys(d.prefix),
    d.kinds.map((kind) => kind.stream),
    { lastOutage: true },
  );
  const outage = await outageAlert(d, holds, now);
  if (outage) await sendClaimed(d, outage, sent);
  // A call held while the rest runs (during an outage, the outage's alert tells it).
  if (!holds.outage.open) {
    const head = alertHead(d.prefix, d.account);
    const streams = d.kinds.map((kind) => kind.stream);
    for (const claimed of await callAlerts({ ...d, head, streams, outageSeconds: d.settings.outageSeconds }, holds.calls, now))
      await sendClaimed(d, claimed, sent);
  }
  const head = alertHead(d.prefix, d.account);
  for (const claimed of await waitAlerts({ ...d, head, alertHours: d.settings.waitHours }, now)) await sendClaimed(d, claimed, sent);
  for (const [i, kind] of d.kinds.entries()) {
    const stream = kind.stream;
    const pause = await pauseAlert(d, holds.streams[i]!);
    // Told once per pause (its claim in the breaker's hash), not once per interval; a paused stream's lag is its pause.
    if (pause) await sendClaimed(d, pause, sent);
    const failures = await failureAlert(d, stream, now);
    const candidates: Array<{ alert: Alert; after?: () => Promise<unknown> }> = [];
    if (failures)
      candidates.push({ alert: failures.alert, after: () => d.redis.set(k(d.prefix).seen(stream), String(failures.seenUntil)) });
    // A held stream pulls nothing: its lag is its hold's, told by the hold's own alert.
    const lag = isHeld(holds, stream) ? undefined : await lagAlert(d, kind, now);
    if (lag) candidates.push({ alert: lag });
    const missed = await missedWebhooksAlert(d, stream, now);
    if (missed) candidates.push({ alert: missed });
    for (const { alert, after } of candidates) {
      const gate = k(d.prefix).gate(alert.reason);
      if ((await d.redis.set(gate, String(now), 'EX', d.settings.intervalSeconds, 'NX')) !== 'OK') continue;
      const text = redact(alert.text, d.secrets);
      try {
        await postAlert(d.settings.webhookUrl, text, d.account);
      } catch (err) {
        // Not sent: free the reason so that the next look tries again.
        await d.redis.del(gate);
        logRepeated(
          d.logger,
          'warn',
          `alert-post:${reasonOf(err)}`,
          { alert: alert.reason, err: messageOf(err) },
          'alert not sent: check ALERT_WEBHOOK_URL; trying again at the next look',
        );
        continue;
      }
      await after?.();
      d.logger.info({ reason: alert.reason }, 'alert sent');
      sent.push({ reason: alert.reason, text });
    }
  }
  return sent;
}

/** Looks every `everyMs` until stopped; a failed look is logged and the next one goes on. One look at a time. */
export function startAlerts(d: AlertDeps, everyMs: number): { stop(): Promise<void>; lookNow(): void } {
  const looks = startLooking(
    () => checkAlerts(d),
    everyMs,
    (err) =>
      logRepeated(d.logger, 'warn', `alert-check:${reasonOf(err)}`, { err: messageOf(err) }, 'alert check failed (Redis?); trying again'),
  );
  // The first look marks where failures count from.
  looks.lookNow();
  return looks;
}
