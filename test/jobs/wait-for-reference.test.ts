import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMapping, type Mapping } from '../../config/mapping-file.js';
import { programKinds } from '../../jobs/kinds.js';
import { sandboxEnv } from '../../src/app/sandbox-config.js';
import { startDashboard } from '../../src/dashboard/dashboard-server.js';
import type { StatusReport } from '../../src/ops/status-report.js';
import { readWaitGroups } from '../../src/queue/wait/wait-store.js';
import { baseEnv, runCli } from '../cli/run-cli.js';
import { redisUrl } from '../helpers/redis.js';
import { orderRecord, orderState } from '../helpers/order-records.js';
import { addProduct } from '../helpers/sandbox-products.js';
import { stockAt } from '../helpers/count-record.js';
import { jobOf, testWorld, type TestWorld } from '../helpers/test-world.js';

const line = (productId: string) => ({ productId, quantity: 1, unitPrice: 9, location: 'Main Warehouse / A-01' });

/** Resolves once `check` holds, looking every 100 ms; throws after `ms`. */
async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<number> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return Date.now() - start;
}

const stateOf = async (world: TestWorld, key: string, stream: 'orders' | 'stock-counts' = 'orders') =>
  (await jobOf(world, stream, key)).getState();

/** The worker's look at the catalog comes every second in these tests (WAIT_LOOK_SECONDS, 50 by default). */
const LOOK_MS = 1_000;

describe('a record that names a product the service lacks', () => {
  let world: TestWorld;

  beforeAll(async () => {
    world = await testWorld('wait-ref', { streams: ['orders'], workers: false });
    await world.startWorkers({ waits: { lookMs: LOOK_MS, boundMs: 3_600_000 } });
    await world.add('orders', [
      orderRecord('W-1', [line('MUG-ORANGE')]),
      orderRecord('W-GOOD'),
      orderRecord('W-2', [line('MUG-BLUE'), line('MUG-ORANGE')]),
    ]);
    await until(async () => (await stateOf(world, 'W-GOOD')) === 'completed', 20_000, 'the good order synced');
    await until(async () => (await readWaitGroups(world.redis, world.keys))[0]?.count === 2, 20_000, 'both orders wait');
  });
  afterAll(async () => {
    await world?.close();
  });

  it('waits, not failed, with no attempt spent, and the order beside it syncs', async () => {
    for (const id of ['W-1', 'W-2']) {
      const job = await jobOf(world, 'orders', id);
      expect(await job.getState()).toBe('delayed');
      expect(job.attemptsMade).toBe(0);
      expect(orderState(world.sandbox.admin.state(), id).orders).toHaveLength(0);
    }
    const [group] = await readWaitGroups(world.redis, world.keys);
    expect(group).toMatchObject({ stream: 'orders', ref: { type: 'product', name: 'MUG-ORANGE' }, count: 2 });
  });

  it('shows the group in status --json and says what the record waits for in find', async () => {
    const env = { ...baseEnv(), REDIS_URL: redisUrl(), QUEUE_PREFIX: world.prefix };
    const r = await runCli(['status', '--json'], env);
    expect(r.code).toBe(0);
    const status = JSON.parse(r.stdout) as StatusReport;
    expect(status.waits.groups).toEqual([
      expect.objectContaining({ stream: 'orders', waitsFor: { type: 'product', name: 'MUG-ORANGE' }, count: 2 }),
    ]);
    expect(status.waits.groups[0]!.text).toMatch(/^2 records of orders wait for product MUG-ORANGE, since \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    const text = await runCli(['status'], env);
    expect(text.stdout).toContain('2 records of orders wait for product MUG-ORANGE');
    const found = await runCli(['find', 'W-1'], env);
    expect(found.stdout).toMatch(/waits for product MUG-ORANGE \(the service lacks it\) since /);
  });

  it("shows the group on the account's page of the dashboard", async () => {
    const dashboard = await startDashboard({
      kinds: programKinds,
      host: '127.0.0.1',
      port: 0,
      auth: null,
      redis: world.redis,
      prefix: world.prefix,
    });
    try {
      const html = await (await fetch(`${dashboard.url}/`)).text();
      expect(html).toContain('Waiting for what the service lacks');
      expect(html).toMatch(/<tr data-wait="orders:product:MUG-ORANGE"><td>orders<\/td><td>product MUG-ORANGE<\/td><td class="n">2<\/td>/);
    } finally {
      await dashboard.close();
    }
  });

  it('syncs each order once, by itself, within a minute of the product being added', async () => {
    addProduct(world.sandbox, 'MUG-ORANGE');
    const took = await until(
      async () => (await stateOf(world, 'W-1')) === 'completed' && (await stateOf(world, 'W-2')) === 'completed',
      60_000,
      'the waiting orders synced',
    );
    expect(took).toBeLessThan(60_000);
    for (const id of ['W-1', 'W-2']) {
      const { orders, shipments } = orderState(world.sandbox.admin.state(), id);
      expect(orders.map((o) => o.statusId)).toEqual(['ORDER_COMPLETED']);
      expect(shipments).toHaveLength(1);
      expect((await jobOf(world, 'orders', id)).attemptsMade).toBe(1);
    }
    expect(await readWaitGroups(world.redis, world.keys)).toEqual([]);
  });
});

describe('a record whose upstream name MAPPING_FILE maps later', () => {
  let world: TestWorld;
  let file: string;

  beforeAll(async () => {
    file = join(mkdtempSync(join(tmpdir(), 'isync-wait-map-')), 'mapping.csv');
    writeFileSync(file, 'kind,upstream,service\nproduct,SKU-9,MUG-BLUE\n');
    const loaded = loadMapping(file);
    const mapping = (loaded as { mapping: Mapping }).mapping;
    world = await testWorld('wait-map', { streams: ['orders'], workers: false, mapping });
    await world.startWorkers({ waits: { lookMs: LOOK_MS, boundMs: 3_600_000 } });
    await world.add('orders', [orderRecord('WM-1', [line('shopify:777')])]);
    await until(async () => (await stateOf(world, 'WM-1')) === 'delayed', 20_000, 'the order waits');
  });
  afterAll(async () => {
    await world?.close();
  });

  it('syncs by itself once an entry maps the name', async () => {
    expect(await readWaitGroups(world.redis, world.keys)).toEqual([
      expect.objectContaining({ ref: { type: 'product', name: 'shopify:777' } }),
    ]);
    writeFileSync(file, 'kind,upstream,service\nproduct,SKU-9,MUG-BLUE\nproduct,shopify:777,MUG-RED\n');
    await until(async () => (await stateOf(world, 'WM-1')) === 'completed', 60_000, 'the mapped order synced');
    const { shipments } = orderState(world.sandbox.admin.state(), 'WM-1');
    expect(shipments).toHaveLength(1);
    expect(JSON.stringify(shipments[0])).toContain(world.product('MUG-RED'));
  });
});

describe('a record that waits longer than WAIT_FOR_REFERENCE_HOURS', () => {
  let world: TestWorld;

  beforeAll(async () => {
    world = await testWorld('wait-bound', { streams: ['orders'], workers: false });
    await world.startWorkers({ waits: { lookMs: LOOK_MS, boundMs: 1_500 } });
    await world.add('orders', [orderRecord('WB-1', [line('MUG-NEVER')])]);
  });
  afterAll(async () => {
    await world?.close();
  });

  it('fails for good with what it waited for and since when', async () => {
    await until(async () => (await stateOf(world, 'WB-1')) === 'failed', 20_000, 'the order failed at its bound');
    const job = await jobOf(world, 'orders', 'WB-1');
    expect(job.failedReason).toMatch(
      /^\[BAD_RECORD\] record WB-1: lines\.0\.productId: "MUG-NEVER" is an unknown product .*; waited for product MUG-NEVER since \d{4}-\d\d-\d\dT[\d:.]+Z, longer than WAIT_FOR_REFERENCE_HOURS/,
    );
    expect(job.attemptsMade).toBe(1);
    expect(await readWaitGroups(world.redis, world.keys)).toEqual([]);
  });
});

describe('jobs retry of a waiting record', () => {
  let world: TestWorld;
  let env: Record<string, string>;

  beforeAll(async () => {
    world = await testWorld('wait-retry', { streams: ['orders'], workers: false });
    // No look of its own within the test: only the command looks at the catalog.
    await world.startWorkers({ waits: { lookMs: 3_600_000, boundMs: 3_600_000 } });
    await world.add('orders', [orderRecord('WR-1', [line('MUG-LATE')])]);
    await until(async () => (await stateOf(world, 'WR-1')) === 'delayed', 20_000, 'the order waits');
    env = { ...baseEnv(), ...sandboxEnv(world.sandbox), REDIS_URL: redisUrl(), QUEUE_PREFIX: world.prefix };
  });
  afterAll(async () => {
    await world?.close();
  });

  it('says it still waits while the service lacks the product', async () => {
    const id = (await jobOf(world, 'orders', 'WR-1')).id!;
    const r = await runCli(['jobs', 'retry', id], env);
    expect(r.stdout).toContain(`${id}: waits for product MUG-LATE`);
    expect(r.stdout).toContain('1 record of orders waits for product MUG-LATE');
    expect(await stateOf(world, 'WR-1')).toBe('delayed');
  });

  it('a dry run says which records would wait under a worker, and for what', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'isync-wait-dry-')), 'orders.ndjson');
    writeFileSync(file, [orderRecord('WD-1', [line('MUG-DRY')]), orderRecord('WD-2')].map((r) => JSON.stringify(r)).join('\n') + '\n');
    const text = await runCli(['import', 'orders', file, '--dry-run'], env);
    expect(text.stdout).toMatch(/Of these, 1 record only names what the service lacks: under a running `worker` each would wait/);
    expect(text.stdout).toMatch(/orders\s+WD-1\s+product MUG-DRY/);
    const json = await runCli(['import', 'orders', file, '--dry-run', '--json'], env);
    const plans = (JSON.parse(json.stdout) as { records: Array<{ key: string; outcome: string; waitsFor?: string[] }> }).records;
    expect(plans.find((p) => p.key === 'WD-1')).toMatchObject({ outcome: 'fails', waitsFor: ['product MUG-DRY'] });
    expect(plans.find((p) => p.key === 'WD-2')?.waitsFor).toBeUndefined();
  });

  it('looks at the catalog at once, and the record syncs', async () => {
    addProduct(world.sandbox, 'MUG-LATE');
    const id = (await jobOf(world, 'orders', 'WR-1')).id!;
    const r = await runCli(['jobs', 'retry', id], env);
    expect(r.stdout).toContain('Released 1 record of orders that waited for product MUG-LATE');
    await until(async () => (await stateOf(world, 'WR-1')) === 'completed', 10_000, 'the released order synced');
    expect(orderState(world.sandbox.admin.state(), 'WR-1').orders).toHaveLength(1);
  });
});

describe('a CSV count of five rows, one naming a product the service lacks, under a worker', () => {
  let world: TestWorld;
  let env: Record<string, string>;
  const A01 = 'Main Warehouse / A-01';
  const variancesAtA01 = () => world.sandbox.admin.state().variances.filter((v) => v.facilityUrl === world.facility('A-01'));

  beforeAll(async () => {
    world = await testWorld('wait-row', { streams: ['stock-counts'], workers: false });
    await world.startWorkers({ waits: { lookMs: LOOK_MS, boundMs: 3_600_000 } });
    env = { ...baseEnv(), ...sandboxEnv(world.sandbox), REDIS_URL: redisUrl(), QUEUE_PREFIX: world.prefix };
    const file = join(mkdtempSync(join(tmpdir(), 'isync-wait-row-')), 'counts.csv');
    const rows = ['MUG-BLUE,33', 'MUG-RED,30', 'SKU-0010,71', 'SKU-0003,5', 'MUG-ORANGE,7'];
    const csv = ['countId,location,countDate,productId,quantity', ...rows.map((r) => `CNT-W57,${A01},2026-11-21,${r}`)];
    writeFileSync(file, csv.join('\r\n') + '\r\n');
    const r = await runCli(['import', 'stock-counts', file], env);
    expect(r.code, r.stderr).toBe(0);
    await until(async () => (await readWaitGroups(world.redis, world.keys))[0]?.count === 1, 20_000, 'the row waits');
    await until(async () => (await stateOf(world, 'CNT-W57', 'stock-counts')) === 'completed', 20_000, 'the count applied');
  });
  afterAll(async () => {
    await world?.close();
  });

  it('applies the four, and the fifth waits as its own record, named by its CSV line', async () => {
    expect((await jobOf(world, 'stock-counts', 'CNT-W57')).returnvalue.outcome).toBe('synced');
    for (const [id, qty] of [
      ['MUG-BLUE', 33],
      ['MUG-RED', 30],
      ['SKU-0010', 71],
      ['SKU-0003', 5],
    ] as const) {
      expect(stockAt(world, 'A-01', id)).toBe(qty);
    }
    expect(variancesAtA01()).toHaveLength(1);
    const row = await jobOf(world, 'stock-counts', 'CNT-W57~MUG-ORANGE');
    expect(await row.getState()).toBe('delayed');
    expect(row.attemptsMade).toBe(0);
    const [trace] = await world.traces('stock-counts', row.id!);
    expect(trace!.error).toMatchObject({ code: 'WAITING' });
    expect(trace!.error.message).toContain('line 6, column productId: no product MUG-ORANGE');
    const status = JSON.parse((await runCli(['status', '--json'], env)).stdout) as StatusReport;
    expect(status.waits.groups).toEqual([
      expect.objectContaining({ stream: 'stock-counts', waitsFor: { type: 'product', name: 'MUG-ORANGE' }, count: 1 }),
    ]);
  });

  it('applies the fifth row by itself, once, within the look, once the product exists', async () => {
    const orange = addProduct(world.sandbox, 'MUG-ORANGE');
    const took = await until(
      async () => (await stateOf(world, 'CNT-W57~MUG-ORANGE', 'stock-counts')) === 'completed',
      60_000,
      'the row applied',
    );
    expect(took).toBeLessThan(60_000);
    expect((await jobOf(world, 'stock-counts', 'CNT-W57~MUG-ORANGE')).attemptsMade).toBe(1);
    expect(world.sandbox.admin.stockOnHand(world.facility('A-01'), orange)).toBe(7);
    const variances = variancesAtA01();
    expect(variances).toHaveLength(2);
    // The second variance is the fifth row's alone: the four are not posted again.
    expect(variances[1]!.inventoryItemVarianceList.map((i) => [i.productUrl, i.quantityOnHandVar])).toEqual([[orange, 7]]);
    expect(await readWaitGroups(world.redis, world.keys)).toEqual([]);
  });
});
