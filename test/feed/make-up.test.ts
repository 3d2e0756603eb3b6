import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFeedServer, type FeedServer } from '../../src/feed/feed-server.js';
import { startControl, type Control, type StartControlOptions } from '../../src/feed/control.js';
import { endOutage, openedAt, recordServiceDown } from '../../src/queue/hold/outage-state.js';
import { queueWorld, sleep, type QueueWorld } from '../queue/support.js';
import { STREAMS } from '../../jobs/kinds.js';
import { stockCountKind } from '../../jobs/stock/stock-count-kind.js';
import { until } from '../kit/until.js';
import { feedControlOptions } from '../kit/control-options.js';
import { cliInProcess } from '../cli/cli-in-process.js';
import { baseEnv } from '../cli/run-cli.js';
import { redisUrl } from '../helpers/redis.js';

/**
 * Issue 45: nothing due is lost. The nightly stock-count run (a cron that fires once a day) made up once when the
 * outage it fell in ends, or when a worker starts after a stop over its minute; not when it is older than the
 * catch-up window; and shown as made up by `status --json`.
 */
/**
 * How soon a pull that did not fetch is looked at again (makeUpLookMs), in ms: 6 s, not the default 10, so that the test
 * waits less. Not under GRACE_MS (5 s): a look sooner than that after the slot finds nothing owed yet, and stops.
 */
const LOOK_MS = 6_000;

let w: QueueWorld;
let feed: FeedServer;
const controls: Control[] = [];

beforeEach(async () => {
  w = await queueWorld('make-up');
  feed = await startFeedServer({ names: STREAMS, token: 'feed-token' });
  feed.append('stock-counts', [count('MU-1'), count('MU-2')]);
});
afterEach(async () => {
  for (const c of controls.splice(0)) {
    await c.removeSchedules();
    await c.close(1_000);
  }
  await feed.close();
  await w.close();
});

function count(countId: string) {
  return { countId, location: 'Main Warehouse / A-01', countDate: '2026-11-30', items: [{ productId: 'MUG-BLUE', quantity: 4 }] };
}

/** A cron that fires once a day, at the second of `at` (UTC): as `0 19 * * *` does. */
function onceADayAt(at: number): string {
  const d = new Date(at);
  return `${d.getUTCSeconds()} ${d.getUTCMinutes()} ${d.getUTCHours()} * * *`;
}

async function start(o: Partial<StartControlOptions> & Pick<StartControlOptions, 'schedule'>): Promise<Control> {
  const control = await startControl({ kinds: [stockCountKind], ...feedControlOptions(w, feed), ...o });
  controls.push(control);
  return control;
}

const queued = () => w.queues.get('stock-counts').getJobCounts('waiting', 'delayed', 'active', 'completed', 'failed');
const total = async () => Object.values(await queued()).reduce((a, b) => a + b, 0);
const pulls = () => feed.counters().requests['stock-counts'] ?? 0;

async function statusJson(): Promise<{ schedule: Array<Record<string, any>> }> {
  const r = await cliInProcess(['status', '--json'], { ...baseEnv(), REDIS_URL: redisUrl(), QUEUE_PREFIX: w.prefix });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { schedule: Array<Record<string, any>> };
}

describe('a scheduled pull that falls due inside an outage', () => {
  it('is not recorded as ok, and is made up once within 30 s of the return', async () => {
    const due = Date.now() + 3_000;
    expect((await recordServiceDown(w.redis, w.keys, { threshold: 1, reason: '[TRANSIENT] 503', firstProbeMs: 60_000 })).state).toBe(
      'tripped',
    );
    const control = await start({ schedule: { stockSyncCron: onceADayAt(due), stockSyncTz: 'UTC' }, makeUpLookMs: LOOK_MS });
    await until(async () => (await control.scheduleInfo())[0]?.lastRunAt !== undefined, 10_000);
    const held = (await control.scheduleInfo())[0]!;
    expect(held).toMatchObject({ lastOk: false, missed: { dueAt: due - (due % 1000), cause: 'outage' } });
    expect(await total()).toBe(0);
    // Its first page was asked, and its records kept in the feed (the run held: nothing queued).
    expect(pulls()).toBe(1);
    const shown = (await statusJson()).schedule.find((s) => s.name === 'stock-sync')!;
    expect(shown).toMatchObject({ lastOk: false, missed: { cause: 'outage' } });

    await sleep(2_000);
    const since = (await openedAt(w.redis, w.keys))!;
    expect(await endOutage(w.redis, w.keys, since, 0)).toBe(true);
    const back = Date.now();
    await until(async () => (await total()) === 2 && (await control.scheduleInfo())[0]?.madeUp !== undefined, 30_000);
    expect(Date.now() - back).toBeLessThan(30_000);
    const info = (await control.scheduleInfo())[0]!;
    expect(info).toMatchObject({ lastOk: true, madeUp: { dueAt: due - (due % 1000), cause: 'outage' } });
    expect(info.missed).toBeUndefined();
    // Once: later looks find nothing owed.
    await sleep(LOOK_MS + 1_000);
    expect(pulls()).toBe(2);
    const status = (await statusJson()).schedule.find((s) => s.name === 'stock-sync')!;
    expect(status.madeUp.text).toMatch(
      /^the \d{4}-\d\d-\d\d \d\d:\d\d UTC run made up at \d{4}-\d\d-\d\d \d\d:\d\d UTC after an outage of the service$/,
    );
    expect(status.missed).toBeNull();
  }, 60_000);
});

describe('a scheduled pull whose time finds no worker running', () => {
  /** The schedule was kept an hour ago, and its last pull fetched then: the slot `due` passed while nothing ran. */
  async function stoppedOver(due: number) {
    const hourAgo = String(Date.now() - 3600_000);
    await w.redis.hset(w.keys.schedule(), 'stock-sync.since', hourAgo, 'stock-sync.fetchedAt', hourAgo);
    return { stockSyncCron: onceADayAt(due), stockSyncTz: 'UTC' };
  }

  it('is made up once when a worker starts, by one of two', async () => {
    const due = Date.now() - 20_000;
    const schedule = await stoppedOver(due);
    const [a, b] = await Promise.all([start({ schedule }), start({ schedule })]);
    await until(async () => (await total()) === 2, 10_000);
    await sleep(1_500);
    expect(pulls()).toBe(1);
    for (const c of [a, b]) expect((await c.scheduleInfo())[0]).toMatchObject({ madeUp: { dueAt: due - (due % 1000), cause: 'stopped' } });
    const status = (await statusJson()).schedule.find((s) => s.name === 'stock-sync')!;
    expect(status.madeUp.text).toMatch(/after a stop \(no worker took it/);
  });

  it('is not made up when it is older than the catch-up window, and says so', async () => {
    const due = Date.now() - 20_000;
    const schedule = await stoppedOver(due);
    const control = await start({ schedule, catchUpMs: 10_000 });
    await until(async () => (await control.scheduleInfo())[0]?.notMadeUp !== undefined, 10_000);
    expect(await total()).toBe(0);
    expect(pulls()).toBe(0);
    const status = (await statusJson()).schedule.find((s) => s.name === 'stock-sync')!;
    expect(status.notMadeUp.text).toMatch(/not made up: older than SCHEDULE_CATCH_UP_SECONDS$/);
    expect(w.logLines().filter((l) => String(l.msg).includes('is older than SCHEDULE_CATCH_UP_SECONDS'))).toHaveLength(1);
  });
});
