import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../../../config/read-config.js';
import { settingValues } from '../../../config/kind-setting.js';
import { programKinds } from '../../../jobs/kinds.js';
import { buildDeps, type AppDeps } from '../../../src/app/build-deps.js';
import { syncOnce } from '../../../src/app/runtime.js';
import { readStockOnHand } from '../../../src/catalog/stock-on-hand.js';
import { runCli } from '../../../src/cli/program.js';
import { startDashboard } from '../../../src/dashboard/dashboard-server.js';
import { startFeedServer, type FeedServer } from '../../../src/feed/feed-server.js';
import { createLogger } from '../../../src/log/logger.js';
import { findRecord } from '../../../src/ops/find.js';
import { reconcile } from '../../../src/ops/reconcile.js';
import { openStreamQueues } from '../../../src/queue/stream-queues.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/sandbox.js';
import { captureOut } from '../../helpers/out-stream.js';
import { deletePrefix, redisUrl, uniquePrefix } from '../../helpers/redis.js';
import { captureLogger, settleMeta } from '../../queue/support.js';
import { NOT_A_LOCATION } from './adjust-stock.js';
import { stockAdjustmentKind } from './stock-adjustment-kind.js';

/** The program's list plus one line: all a fifth kind needs besides its folder. */
const kinds = [...programKinds, stockAdjustmentKind];
const STREAM = stockAdjustmentKind.stream;
const A01 = 'Main Warehouse / A-01';
/** A count of the program's stock kind, before the adjustments: they move the stock it counted. */
const count = { countId: 'FK-COUNT-1', location: A01, countDate: '2026-11-20', items: [{ productId: 'MUG-BLUE', quantity: 10 }] };
const adjustments = [
  {
    adjustmentId: 'ADJ-1',
    adjustedDate: '2026-11-21',
    location: A01,
    reason: 'write-off',
    items: [{ productId: 'MUG-BLUE', quantity: 3 }],
  },
  { adjustmentId: 'ADJ-2', adjustedDate: '2026-11-21', location: A01, reason: 'found', items: [{ productId: 'MUG-RED', quantity: 2 }] },
  { adjustmentId: 'ADJ-OLD', adjustedDate: '2026-10-01', location: A01, reason: 'found', items: [{ productId: 'MUG-RED', quantity: 1 }] },
  {
    adjustmentId: 'ADJ-MAG',
    adjustedDate: '2026-11-21',
    location: 'Main Warehouse',
    reason: 'found',
    items: [{ productId: 'MUG-RED', quantity: 1 }],
  },
];

let sandbox: Sandbox;
let feed: FeedServer;
let deps: AppDeps;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox({ data: 'demo' });
  // The count's stream is the program's own; the feed hands out only this test's records on it.
  const countStream = programKinds.find((k) => k.record.keyField === 'countId')!.stream;
  feed = await startFeedServer({ names: kinds.map((k) => k.stream), streams: { [countStream]: [count], [STREAM]: adjustments } });
  env = {
    INVENTORY_BASE_URL: sandbox.url,
    INVENTORY_ACCOUNT: sandbox.account,
    INVENTORY_API_KEY: sandbox.key,
    INVENTORY_API_SECRET: sandbox.secret,
    REDIS_URL: redisUrl(),
    QUEUE_PREFIX: uniquePrefix('fifth'),
    UPSTREAM_URL: feed.url,
    ADJUSTMENT_POLL_SECONDS: '7',
    SYNC_ADJUSTMENTS_SINCE: '2026-11-01',
    // The sandbox has no limits: reconcile's collection reads need not wait for the default budget.
    INVENTORY_COLLECTION_PER_HOUR: '100000',
  };
  deps = buildDeps(readConfig(env, { service: true, upstream: true }, kinds), captureLogger().logger, { kinds });
  await settleMeta(deps.queues);
  await syncOnce(deps, { kinds, streams: [countStream], pollMs: 50 });
}, 60_000);
afterAll(async () => {
  await deletePrefix(deps.redis, deps.config.redis.prefix);
  await deps.close();
  await feed.close();
  await sandbox.close();
});

/** Runs a command line in this process with the list, as src/bin does with the program's; answers code and stdout. */
async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const [out, err] = [captureOut(false), captureOut(false)];
  const io = { env, stdout: out.stream, stderr: err.stream, stdin: Readable.from([]), stop: new AbortController().signal };
  const code = await runCli(argv, io, kinds);
  return { code, stdout: out.text(), stderr: err.text() };
}

describe('a fifth kind of job (stock adjustments)', () => {
  describe('when its folder and its line in the list are handed to config', () => {
    it('reads its own poll setting and go-live floor, with the rules and messages of the program', () => {
      expect(deps.config.schedule.adjustmentPollSeconds).toBe(7);
      expect(stockAdjustmentKind.feed.pull(settingValues(stockAdjustmentKind, deps.config.schedule))).toEqual({ every: 7 });
      expect(deps.config.goLive.SYNC_ADJUSTMENTS_SINCE).toBe('2026-11-01');
      expect(readConfig({}, {}, kinds).schedule.adjustmentPollSeconds).toBe(30);
      expect(() => readConfig({ ADJUSTMENT_POLL_SECONDS: 'soon', SYNC_ADJUSTMENTS_SINCE: '1 Nov' }, {}, kinds)).toThrow(ConfigError);
      try {
        readConfig({ ADJUSTMENT_POLL_SECONDS: 'soon', SYNC_ADJUSTMENTS_SINCE: '1 Nov' }, {}, kinds);
      } catch (e) {
        expect((e as ConfigError).problems.sort()).toEqual([
          'ADJUSTMENT_POLL_SECONDS must be a whole number',
          'SYNC_ADJUSTMENTS_SINCE must be a calendar date YYYY-MM-DD, such as 2026-01-01',
        ]);
      }
    });
  });

  describe('when its stream is pulled', () => {
    it('processes each record: one variance per adjustment, the old one skipped, the bad one failed with its code', async () => {
      const summary = await syncOnce(deps, { kinds, streams: [STREAM], pollMs: 50 });
      expect(summary.perStream[STREAM]).toMatchObject({ queued: 4, completed: 3 });
      expect(summary.perStream[STREAM]?.failed.map((f) => f.key)).toEqual(['ADJ-MAG']);
      const done = await deps.queues.get(STREAM).getCompleted();
      const outcomes = Object.fromEntries(
        done.map((j) => [(j.data.record as { adjustmentId: string }).adjustmentId, j.returnvalue.outcome]),
      );
      expect(outcomes).toEqual({ 'ADJ-1': 'synced', 'ADJ-2': 'synced', 'ADJ-OLD': 'skipped' });
      const [failed] = await deps.queues.get(STREAM).getFailed();
      expect(failed?.failedReason).toMatch(new RegExp(`^\\[${NOT_A_LOCATION}\\] adjustment ADJ-MAG: "Main Warehouse" is not a location`));
      const a01 = (await deps.catalog.facility(A01)) as { ok: true; facility: { facilityUrl: string } };
      const mug = await deps.catalog.product('MUG-BLUE');
      expect((await readStockOnHand(deps.client)).get(a01.facility.facilityUrl)?.get(mug!.productUrl)).toBe(7);
    });

    it('is found by find, with the variance it made', async () => {
      const queues = openStreamQueues(deps.redis, deps.config.redis.prefix, kinds);
      try {
        const found = await findRecord(deps.redis, queues, 'ADJ-1', undefined, { kinds });
        expect(found.jobs.map((j) => [j.stream, j.state, j.key])).toEqual([[STREAM, 'completed', 'ADJ-1']]);
        expect(found.entities).toEqual([{ kind: 'variance', url: expect.stringMatching(/inventoryvariance/), source: found.jobs[0]!.id }]);
      } finally {
        await queues.close();
      }
    });
  });

  describe('when reconcile runs over the list', () => {
    const run = (list: typeof kinds) => {
      const queues = openStreamQueues(deps.redis, deps.config.redis.prefix, list);
      const r = reconcile({
        client: deps.client,
        catalog: deps.catalog,
        redis: deps.redis,
        prefix: deps.config.redis.prefix,
        queues,
        kinds: list,
      });
      return r.finally(() => queues.close());
    };

    it('reads its own collection for its rule, and the stock counts net out the stock it moved', async () => {
      const report = await run(kinds);
      expect(report.drifts).toEqual([]);
      expect(report.checked).toMatchObject({ adjustments: 2, stockPairs: 1 });
      expect(report.compared).toContain('2 stock adjustments');
    });

    it('without its stock effects, the count would drift by the write-off (7 on hand, 10 expected)', async () => {
      const blind = [...programKinds, { ...stockAdjustmentKind, ops: { ...stockAdjustmentKind.ops, stockEffects: undefined } }];
      const report = await run(blind);
      expect(report.drifts.map((d) => [d.kind, d.service, d.synced])).toEqual([['stock-differs', '7', '10']]);
    });
  });

  describe('when the operator looks', () => {
    it('is shown by status and jobs list, and jobs show gives its failure code the hint it declares', async () => {
      const status = await cli(['status', '--json']);
      expect(status.code).toBe(0);
      const streams = (JSON.parse(status.stdout) as { streams: Array<{ stream: string; counts: Record<string, number> }> }).streams;
      expect(streams.find((s) => s.stream === STREAM)?.counts).toMatchObject({ completed: 3, failed: 1 });

      const list = await cli(['jobs', 'list', '--stream', STREAM, '--json']);
      const jobs = (JSON.parse(list.stdout) as { jobs: Array<{ id: string; key: string; reason: { code: string } | null }> }).jobs;
      expect(jobs.map((j) => [j.key, j.reason?.code])).toEqual([['ADJ-MAG', NOT_A_LOCATION]]);

      const show = await cli(['jobs', 'show', jobs[0]!.id, '--json']);
      expect((JSON.parse(show.stdout) as { error: { hint: string } }).error.hint).toBe(stockAdjustmentKind.job.failures![NOT_A_LOCATION]);
    });

    it('is shown by the dashboard', async () => {
      const dashboard = await startDashboard({
        host: '127.0.0.1',
        port: 0,
        auth: null,
        kinds,
        redis: deps.redis,
        prefix: deps.config.redis.prefix,
        logger: createLogger({ level: 'silent' }),
      });
      try {
        const page = await (await fetch(`${dashboard.url}/`)).text();
        expect(page).toContain(STREAM);
        expect(page).toContain('ADJUSTMENT_NOT_A_LOCATION');
      } finally {
        await dashboard.close();
      }
    });

    it('is resumed by resume and retried by jobs retry, as a stream of the list', async () => {
      const resume = await cli(['resume', '--stream', STREAM, '--json']);
      expect((JSON.parse(resume.stdout) as { resumed: Array<{ stream: string; wasPaused: boolean }> }).resumed).toEqual([
        expect.objectContaining({ stream: STREAM, wasPaused: false }),
      ]);
      const retry = await cli(['jobs', 'retry', '--all-failed', '--stream', STREAM, '--json']);
      expect(retry.code).toBe(0);
      expect((JSON.parse(retry.stdout) as { retried: Array<{ stream: string }> }).retried).toEqual([
        expect.objectContaining({ stream: STREAM }),
      ]);
    });
  });
});
