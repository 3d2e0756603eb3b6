import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../config/read-config.js';
import { returnVariances } from '../../bench/chaos/check-lives.js';
import { programKinds } from '../../jobs/kinds.js';
import { buildDeps, type AppDeps } from '../../src/app/build-deps.js';
import { startFeedServer, type FeedServer } from '../../src/feed/feed-server.js';
import { createLogger } from '../../src/log/logger.js';
import { expandBatch } from '../../src/queue/intake.js';
import { intakeQueueName } from '../../src/queue/intake-queue.js';
import { importAndMaybeProcess, syncOnce } from '../../src/app/runtime.js';
import type { SandboxState } from '../../src/sandbox/sandbox-entities.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import type { ImportRun } from '../../bench/chaos/chaos-import.js';
import { checkCountResults, countResults } from '../../bench/chaos/check-counts.js';
import { checkImports } from '../../bench/chaos/check-import.js';
import { checkIntake } from '../../bench/chaos/check-intake.js';
import { checkLocks, checkQueues, namesField } from '../../bench/chaos/check-queues.js';
import { checkLogHygiene } from '../../bench/chaos/log-hygiene.js';
import { checkState } from '../../bench/chaos/check-state.js';
import type { CheckResult } from '../../bench/chaos/check-types.js';
import type { ImportPlan } from '../../bench/chaos/import-plan.js';
import { POISON_MAX_RECORD_BYTES } from '../../bench/chaos/poison.js';
import { buildScenario, type Scenario } from '../../bench/chaos/scenario.js';
import { connect, deletePrefix, redisUrl, uniquePrefix } from '../helpers/redis.js';
import { STREAMS } from '../../jobs/kinds.js';

const CHUNK = 5;
const failing = (results: CheckResult[]) => results.filter((r) => r.violations.length > 0);
const named = (results: CheckResult[], start: string) => results.find((r) => r.name.startsWith(start));

/** The chaos run's rules, over a small scenario synced for real (sandbox, feed, an NDJSON import, Redis, the three jobs). */
describe('chaos checks', () => {
  const dir = mkdtempSync(join(tmpdir(), 'isync-chaos-checks-'));
  let sandbox: Sandbox;
  let feed: FeedServer;
  let deps: AppDeps;
  let redis: Redis;
  let prefix: string;
  let scenario: Scenario;
  let initial: SandboxState;
  let final: SandboxState;
  let plan: ImportPlan;
  /** The import of the file after the feed's sync, and the same file again once processed. */
  let runs: ImportRun[];

  beforeAll(async () => {
    scenario = buildScenario({
      orders: 25,
      countsPerLocation: 2,
      countShare: 0.3,
      boms: 4,
      redeliveryRate: 0.2,
      badPerStream: 1,
      importShare: 0.5,
      lifeShare: 0.4,
      seed: 3,
    });
    plan = scenario.imported!;
    sandbox = await startSandbox({ data: 'demo', account: 'chaos' });
    initial = sandbox.admin.state();
    feed = await startFeedServer({ names: STREAMS, streams: scenario.feed });
    prefix = uniquePrefix('chaos');
    redis = connect();
    const env = {
      INVENTORY_BASE_URL: sandbox.url,
      INVENTORY_ACCOUNT: sandbox.account,
      INVENTORY_API_KEY: sandbox.key,
      INVENTORY_API_SECRET: sandbox.secret,
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      UPSTREAM_URL: feed.url,
      VARIANCE_CHUNK_SIZE: String(CHUNK),
      MAX_RECORD_BYTES: String(POISON_MAX_RECORD_BYTES),
      // No budget to wait for: the rules are under test here, not the pacing.
      INVENTORY_POST_PER_MINUTE: '100000',
      INVENTORY_GET_PER_MINUTE: '100000',
    };
    deps = buildDeps(readConfig(env, { service: true, upstream: true }, programKinds), createLogger({ level: 'silent' }), {
      redis,
      kinds: programKinds,
    });
    await syncOnce(deps, { kinds: programKinds });
    const file = join(dir, 'orders.ndjson');
    writeFileSync(file, `${plan.lines.join('\n')}\n`);
    const first = await importAndMaybeProcess(deps, { kinds: programKinds, stream: 'orders', source: file, process: true });
    // Re-deliveries across routes the other way round: the feed brings some of the file's records after the import.
    feed.append('orders', plan.fedAfter);
    await syncOnce(deps, { kinds: programKinds });
    const again = await importAndMaybeProcess(deps, { kinds: programKinds, stream: 'orders', source: file, process: false });
    runs = [
      { phase: 'storm', progress: 0.1, code: 0, ms: first.imported.ms, counts: first.imported },
      { phase: 'again', progress: 1, code: 0, ms: again.imported.ms, counts: again.imported },
    ];
    final = sandbox.admin.state();
  }, 60_000);

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await deps?.close();
    await deletePrefix(redis, prefix);
    redis.disconnect();
    await feed?.close();
    await sandbox?.close();
  });

  describe('when every record is synced once', () => {
    it('finds no violation in the service, the queues, the intake queues, the imports or the locks', async () => {
      const results = [
        ...checkState(scenario, initial, final, CHUNK),
        ...(await checkQueues(redis, prefix, scenario)),
        await checkLocks(redis, prefix, 0),
        ...checkImports(plan, runs),
        checkCountResults(scenario, await countResults(redis, prefix)),
      ];
      expect(failing(results)).toEqual([]);
      expect(named(results, 'each good order exists once')?.checked).toBe(25);
      expect(named(results, 'each order life exists once')?.checked).toBe(10);
      expect(named(results, 'each fulfillment of a life')?.checked).toBeGreaterThan(0);
      expect(named(results, 'each restocked return')?.checked).toBeGreaterThan(0);
      expect(named(results, 'every intake queue ends empty')?.checked).toBe(3);
    });

    it('covers imported records: good ones, bad ones, one line not JSON, and some the feed delivered too', () => {
      expect(plan.good).toBe(12);
      expect(plan.crossRoute).toBeGreaterThan(1);
      expect(plan.fedAfter.length).toBeGreaterThan(0);
      expect(plan.malformed).toBe(1);
      expect(scenario.bad.filter((b) => b.via === 'import').map((b) => b.field)).toEqual([
        'lines.0.productId',
        'lines.0.quantity',
        'lines.0.location',
        'orderId',
        expect.stringMatching(/^line \d+$/),
      ]);
      // The import found the cross-route ones the feed had brought already, and the repeated line.
      expect(runs[0]!.counts!.duplicates).toBe(plan.crossRoute - plan.fedAfter.length + plan.repeats);
    });
  });

  describe('when the feed carries poison (too deep, too large, not UTF-8)', () => {
    const poisonRule = 'each poison record';

    it('finds each failed alone, at once, as BAD_RECORD with its reason', async () => {
      const rule = named(await checkQueues(redis, prefix, scenario), poisonRule);
      expect(rule).toMatchObject({ checked: 5, violations: [] });
    });

    it('reports one whose failure gives another reason', async () => {
      const broken = structuredClone(scenario);
      const deep = broken.bad.find((b) => b.poison?.startsWith('nested') && b.stream === 'orders')!;
      deep.poison = 'is not valid UTF-8';
      const rule = named(await checkQueues(redis, prefix, broken), poisonRule);
      expect(rule?.violations).toEqual([
        expect.stringMatching(
          new RegExp(`^orders poison ${deep.key}: failedReason ".*nested deeper than 32 levels.*" is not \\[BAD_RECORD\\] naming`),
        ),
      ]);
    });

    it('reports one whose neighbour in the feed did not sync', async () => {
      const broken = structuredClone(scenario);
      const big = broken.bad.find((b) => b.poison === 'larger than the cap')!;
      const feed = broken.feed.orders;
      const at = feed.findIndex(
        (r) => r instanceof Uint8Array && Buffer.compare(Buffer.from(r), Buffer.from(big.record as Uint8Array)) === 0,
      );
      feed.splice(at + 1, 0, { orderId: 'NEVER-DELIVERED', origin: 'Main Warehouse', lines: [] });
      const rule = named(await checkQueues(redis, prefix, broken), poisonRule);
      expect(rule?.violations).toEqual([
        expect.stringMatching(
          new RegExp(
            `^orders poison ${big.key}: the record next to it \\(job orders-NEVER-DELIVERED-\\w+\\) is unknown, expected completed$`,
          ),
        ),
      ]);
    });
  });

  describe('when an imported record never became a job', () => {
    it('reports its job as not completed', async () => {
      const broken = structuredClone(scenario);
      broken.imported!.records.push({ ...(plan.records[0] as object), orderId: 'NEVER-IMPORTED' });
      const results = await checkQueues(redis, prefix, broken);
      expect(named(results, 'each good record')?.violations).toEqual([
        expect.stringMatching(/orders-NEVER-IMPORTED-\w+ \(a good record\) is not completed/),
      ]);
    });
  });

  describe('when the line that is not JSON failed naming another line', () => {
    it('reports that the failure does not name its line', async () => {
      const broken = structuredClone(scenario);
      const line = broken.bad.find((b) => b.via === 'import' && b.field.startsWith('line '))!;
      line.field = `${line.field}0`;
      const results = await checkQueues(redis, prefix, broken);
      expect(named(results, 'each bad record')?.violations).toEqual([expect.stringContaining(`does not name the field ${line.field}`)]);
    });

    it('finds a line only as a whole number', () => {
      expect(namesField('[BAD_RECORD] record line 12: (line): not valid JSON', 'line 12')).toBe(true);
      expect(namesField('[BAD_RECORD] record line 12: (line): not valid JSON', 'line 1')).toBe(false);
      expect(namesField('record X: lines[0].productId: unknown', 'lines.0.productId')).toBe(true);
    });
  });

  describe('when a batch is left on an intake queue', () => {
    it('reports it waiting, then failed with its reason', async () => {
      const intake = deps.queues.intake('orders');
      await intake.add('orders', { not: 'a batch' } as never, { jobId: 'intake-orders-bogus' });
      expect((await checkIntake(redis, prefix)).violations).toEqual([
        expect.stringMatching(/^orders-intake: 1 batch\(es\) waiting at the end \(intake-orders-bogus\)$/),
      ]);

      // A real worker takes it and fails it, as the workers do with anything that is not a batch.
      const worker = new Worker(intakeQueueName('orders'), (job) => expandBatch(job, deps.queues.get('orders')), {
        connection: redis,
        prefix,
      });
      await new Promise((done) => worker.once('failed', done));
      await worker.close();
      const r = await checkIntake(redis, prefix);
      await (await intake.getJob('intake-orders-bogus'))?.remove();
      expect(r.violations).toEqual([
        expect.stringContaining('orders-intake: 1 batch(es) failed at the end (intake-orders-bogus: [BAD_BATCH]'),
      ]);
    });
  });

  describe('when the import found Redis down (exit 3)', () => {
    it('accepts its two lines for a person, but no other line outside the logger', () => {
      const log = join(dir, 'import.log');
      const lines = [
        'Redis could not be reached at redis://127.0.0.1:40001: ECONNREFUSED',
        'Start Redis or point REDIS_URL at one (e.g. redis://127.0.0.1:6379).',
        '{"level":30,"msg":"ok"}',
      ];
      writeFileSync(log, `${lines.join('\n')}\n`);
      expect(checkLogHygiene([log]).violations).toEqual([]);
      writeFileSync(log, `${[...lines, 'Error: boom', '    at x (file.js:1:1)'].join('\n')}\n`);
      expect(checkLogHygiene([log]).violations).toEqual([expect.stringContaining('import.log: 2 line(s) outside the logger')]);
    });
  });

  describe('when an import did not end well or miscounted', () => {
    const storm = () => runs[0]!;
    const again = () => runs[1]!;
    const cases: Array<{ when: string; runs: () => ImportRun[]; rule: string; says: RegExp }> = [
      { when: 'the import exited 1', runs: () => [{ ...storm(), code: 1 }, again()], rule: 'the import', says: /exit 1, expected 0/ },
      { when: 'the last try exited 3', runs: () => [{ ...storm(), code: 3 }, again()], rule: 'the import', says: /exit 3, expected 0$/ },
      {
        when: 'the import counted another number of invalid lines',
        runs: () => [{ ...storm(), counts: { ...storm().counts!, invalid: plan.invalid - 1 } }, again()],
        rule: 'the import',
        says: /invalid, expected/,
      },
      {
        when: 'queued and duplicates do not add up',
        runs: () => [{ ...storm(), counts: { ...storm().counts!, queued: storm().counts!.queued + 1 } }, again()],
        rule: 'the import',
        says: /!= records/,
      },
      { when: 'the import never ran', runs: () => [again()], rule: 'the import', says: /never ran/ },
      {
        when: 'the re-import queued records again',
        runs: () => [
          storm(),
          { ...again(), counts: { ...again().counts!, queued: 2, duplicates: again().counts!.duplicates - 2, batches: 1 } },
        ],
        rule: 'the same file',
        says: /expected nothing queued/,
      },
    ];
    for (const c of cases) {
      it(`reports it when ${c.when}`, () => {
        expect(named(checkImports(plan, c.runs()), c.rule)?.violations).toEqual([expect.stringMatching(c.says)]);
      });
    }

    it('accepts an exit 3 (Redis restarting) followed by a good run', () => {
      expect(failing(checkImports(plan, [{ ...storm(), code: 3, counts: undefined }, ...runs]))).toEqual([]);
    });
  });

  describe('when a variance was applied twice', () => {
    it('reports the identical pair and the stock that moved twice', () => {
      const broken = structuredClone(final);
      // A count's variance (not the demo data's, nor a life's return: checkLives checks those), whichever job ended first.
      const fresh = broken.variances.filter((v) => !initial.variances.some((i) => i.physicalInventoryId === v.physicalInventoryId));
      const returns = returnVariances(scenario, initial, fresh);
      const twin = structuredClone(fresh.find((v) => !returns.has(v.physicalInventoryId))!);
      twin.physicalInventoryId = 'TWIN';
      broken.variances.push(twin);
      const item = twin.inventoryItemVarianceList[0]!;
      const row = broken.inventory.find((r) => r.facilityUrl === item.facilityUrl && r.productUrl === item.productUrl)!;
      row.quantityOnHand += item.quantityOnHandVar;
      const results = checkState(scenario, initial, broken, CHUNK);
      expect(named(results, 'no variance applied twice')?.violations).toHaveLength(1);
      expect(named(results, 'stock of each counted')?.violations.length).toBeGreaterThan(0);
    });
  });

  describe('when an older count was skipped whole though no newer count lists some of its products', () => {
    it('reports each such (location, product) with the count that should have set it', () => {
      // A product that only older counts of its location list: issue 12 left it at its old quantity.
      const newestOf = (location: string) =>
        [...scenario.counts.values()].filter((c) => c.location === location).sort((a, b) => b.countDate.localeCompare(a.countDate))[0]!
          .countId;
      const stockOf = (state: SandboxState, f: string, p: string) =>
        state.inventory.filter((r) => r.facilityUrl === f && r.productUrl === p).reduce((n, r) => n + r.quantityOnHand, 0);
      const urls = (location: string, productId: string) =>
        [
          initial.facilities.find((f) => f.facilityName === location.split(' / ').pop())!.facilityUrl,
          initial.products.find((p) => p.productId === productId)!.productUrl,
        ] as const;
      const older = [...scenario.expectedCounts]
        .flatMap(([location, items]) => [...items].map(([productId, newest]) => ({ location, productId, newest })))
        .filter(
          (x) => x.newest.countId !== newestOf(x.location) && stockOf(initial, ...urls(x.location, x.productId)) !== x.newest.quantity,
        );
      expect(older.length).toBeGreaterThan(0);
      const { location, productId, newest } = older[0]!;
      const [f, p] = urls(location, productId);
      const broken = structuredClone(final);
      broken.inventory = [
        ...broken.inventory.filter((r) => r.facilityUrl !== f || r.productUrl !== p),
        ...initial.inventory.filter((r) => r.facilityUrl === f && r.productUrl === p),
      ];
      const results = checkState(scenario, initial, broken, CHUNK);
      expect(named(results, 'stock of each counted')?.violations).toEqual([
        `stock of ${f} ${p}: ${stockOf(initial, f, p)}, expected ${newest.quantity} of its newest count ${newest.countId}`,
      ]);
    });
  });

  describe('when a count result claims more than happened', () => {
    it('reports a count skipped though it is the newest for its products, and a product left to a count that is not newer', async () => {
      const results = await countResults(redis, prefix);
      const [newest, older] = [...scenario.counts.values()]
        .filter((c) => c.location === [...scenario.counts.values()][0]!.location)
        .sort((a, b) => b.countDate.localeCompare(a.countDate));
      const someProduct = [...older!.items.keys()][0]!;
      results.set(newest!.countId, { outcome: 'skipped', summary: 'made up', details: { leftToNewer: [] } });
      results.set(older!.countId, {
        outcome: 'synced',
        summary: 'made up',
        details: { leftToNewer: [{ countId: older!.countId, countDate: older!.countDate, productIds: [someProduct] }] },
      });
      const violations = checkCountResults(scenario, results).violations;
      expect(violations).toHaveLength(2);
      expect(violations).toContain(
        `count ${older!.countId}: leaves ${someProduct} to ${older!.countId}, which is not a newer count of ${older!.location} listing it`,
      );
      expect(violations).toContainEqual(
        expect.stringMatching(new RegExp(`^count ${newest!.countId} ended skipped, but no newer count of .* lists `)),
      );
    });
  });

  describe('when an order got a second shipment or stayed open', () => {
    it('reports both orders', () => {
      const broken = structuredClone(final);
      const extra = structuredClone(broken.shipments[0]!);
      extra.shipmentId = 'EXTRA';
      broken.shipments.push(extra);
      broken.orders.find((o) => scenario.goodOrders.has(o.orderId))!.statusId = 'ORDER_CREATED';
      const results = checkState(scenario, initial, broken, CHUNK);
      expect(named(results, 'each good order has exactly one shipment')?.violations).toEqual([expect.stringContaining('2 shipments')]);
      expect(named(results, 'each good order exists once')?.violations).toEqual([expect.stringContaining('ORDER_CREATED')]);
    });
  });

  describe('when an order life was applied twice or cancelled after a shipped part', () => {
    const full = () => [...scenario.lives.values()].find((l) => l.kind === 'full')!;
    const orderOf = (state: SandboxState, id: string) => state.orders.find((o) => o.orderId === id)!;

    it('reports a second live shipment for a fulfillment', () => {
      const broken = structuredClone(final);
      const url = orderOf(broken, full().orderId).orderUrl;
      const extra = structuredClone(broken.shipments.find((s) => s.primaryOrderUrl === url)!);
      extra.shipmentId = 'EXTRA';
      broken.shipments.push(extra);
      const results = checkState(scenario, initial, broken, CHUNK);
      expect(named(results, 'each fulfillment of a life')?.violations).toEqual([
        expect.stringMatching(new RegExp(`^life ${full().orderId}: 2 live shipments named ${full().orderId}-F\\d, expected 1$`)),
      ]);
    });

    it("reports a return's second variance and the stock it put back twice", () => {
      const broken = structuredClone(final);
      const twin = structuredClone(broken.variances.find((v) => v.physicalInventoryDate.startsWith('2025-01-01'))!);
      twin.physicalInventoryId = 'TWIN';
      broken.variances.push(twin);
      const item = twin.inventoryItemVarianceList[0]!;
      broken.inventory.find((r) => r.facilityUrl === item.facilityUrl && r.productUrl === item.productUrl)!.quantityOnHand +=
        item.quantityOnHandVar;
      const results = checkState(scenario, initial, broken, CHUNK);
      expect(named(results, 'each restocked return')?.violations).toEqual([
        `life ${full().orderId}: return ${full().orderId}-R1 has 2 variances, expected exactly 1`,
      ]);
      expect(named(results, 'stock of ordered products')?.violations).toHaveLength(1);
      expect(named(results, 'no variance applied twice')?.violations).toEqual([]);
    });

    it('reports an order cancelled with its shipped part, not in the status of its newest snapshot', () => {
      const broken = structuredClone(final);
      orderOf(broken, full().orderId).statusId = 'ORDER_CANCELLED';
      const results = checkState(scenario, initial, broken, CHUNK);
      expect(named(results, 'no cancelled order has a shipment')?.violations).toEqual([
        expect.stringMatching(new RegExp(`^order ${full().orderId} is cancelled with shipment\\(s\\) ${full().orderId}-F1`)),
      ]);
      expect(named(results, 'each order life exists once')?.violations).toEqual([
        `life ${full().orderId}: status ORDER_CANCELLED, expected ORDER_COMPLETED (fulfilled)`,
      ]);
    });
  });

  describe('when a BOM update added an entry instead of replacing it', () => {
    it('reports the parent with two MANUF_COMPONENT entries', () => {
      const broken = structuredClone(final);
      const parent = broken.products.find((p) => scenario.expectedBoms.has(p.productId))!;
      parent.productAssocList.push({ ...structuredClone(parent.productAssocList[0]!), productAssocUrl: '/chaos/api/productassoc/extra' });
      const results = checkState(scenario, initial, broken, CHUNK);
      expect(named(results, 'each BOM parent')?.violations).toEqual([expect.stringContaining('2 MANUF_COMPONENT entries')]);
    });
  });

  describe('when a lock key is left behind', () => {
    it('reports it once its wait is over', async () => {
      await redis.set(`${prefix}:lock:orders:STUCK`, 'x', 'PX', 60_000);
      const r = await checkLocks(redis, prefix, 0);
      await redis.del(`${prefix}:lock:orders:STUCK`);
      expect(r.violations).toEqual([expect.stringContaining(`${prefix}:lock:orders:STUCK`)]);
    });
  });
});
