import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { programKinds } from '../../jobs/kinds.js';
import type { DryRunPlan } from '../../src/app/dry-run.js';
import { fixedSigningKeys } from '../../src/ingest/signing-keys.js';
import { startReceiver } from '../../src/ingest/receiver.js';
import { createLogger } from '../../src/log/logger.js';
import { createQueues } from '../../src/queue/queues.js';
import { redisKeys } from '../../src/redis/connection.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import type { SandboxData } from '../../src/sandbox/sandbox-data-schema.js';
import { keyOf, newSecret, push } from '../ingest/push-sender.js';
import { orderRecord, syncedOnce } from '../helpers/order-records.js';
import { loggedWrites, plannedWrites, redisSnapshot } from '../helpers/planned-calls.js';
import { placeAt } from '../sources/shopify/store-kit.js';
import { storeWorld } from '../sources/shopify/store-world.js';
import { runCli } from './run-cli.js';
import { startStack } from './stack.js';

/** Where a verb runs: a sandbox service, Redis under a fresh prefix, the command's environment (and a store's orders). */
interface World {
  sandbox: Sandbox;
  redis: Redis;
  prefix: string;
  env: Record<string, string>;
  /** The ids of the orders of the sandbox store, once placed. */
  storeOrders: string[];
  close(): Promise<void>;
}

/** One verb and source: how the world gets there, the dry run, the real run, and what the real run must have synced. */
interface Row {
  name: string;
  /** A sandbox Shopify store as the orders' source (no UPSTREAM_URL); else the HTTP feed with `feed`'s records. */
  store?: boolean;
  feed?: Parameters<typeof startStack>[0];
  /** Brings the world to where the verb runs (a file written, jobs queued, a record synced then drifted); answers the args' file. */
  arrange?(w: World): Promise<string | void>;
  /** The verb's arguments (`--dry-run --json` added for the dry run); `FILE` is arrange's file. */
  args: string[];
  /** The real run: the verb itself, then what works its queued jobs off when it only queues. */
  real?: string[][];
  /** The sources the dry run read (`from` each), when the verb reads sources. */
  sources?: string[];
  /** Lines its text (without --json) prints about where the records came from. */
  text?: (w: World) => string[];
  /** The records the dry run plans writes for, by key. */
  writes: (w: World) => string[];
  /** After the real run: everything synced. */
  synced(w: World): Promise<void>;
}

const SLOW = { timeoutMs: 90_000 };

function file(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'isync-dry-src-')), name);
  writeFileSync(path, text);
  return path;
}
const ndjson = (records: unknown[]) => file('orders.ndjson', `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);

async function ok(args: string[], w: World): Promise<string> {
  const r = await runCli(args, w.env, SLOW);
  expect(r.code, `${args.join(' ')}\n${r.stdout}${r.stderr}`).toBe(0);
  return r.stdout;
}

const synced = (ids: string[]) => async (w: World) => {
  expect(syncedOnce(w.sandbox.admin.state(), ids), JSON.stringify(w.sandbox.admin.state().orders.map((o) => o.orderId))).toBe(true);
};
/** The store's orders are open snapshots: each created once and committed (its units reserved), nothing more. */
const storeSynced = async (w: World) => {
  const orders = w.sandbox.admin.state().orders.filter((o) => w.storeOrders.includes(o.orderId));
  expect(orders.map((o) => [o.orderId, o.statusId]).sort()).toEqual(w.storeOrders.map((id) => [id, 'ORDER_LOCKED']).sort());
};
/** The service and what was synced agree again. */
const noDrift = async (w: World) => {
  await ok(['reconcile'], w);
};
/** Syncs the feed, then reopens `id` in the service (as a person in the web application). */
const syncedThenReopened = (id: string) => async (w: World) => {
  await ok(['sync', '--once'], w);
  const state = JSON.parse(JSON.stringify(w.sandbox.admin.state())) as SandboxData & {
    orders: Array<{ orderId: string; statusId: string }>;
  };
  state.orders.find((o) => o.orderId === id)!.statusId = 'ORDER_CREATED';
  w.sandbox.admin.reset(state);
};

/** Pushes orders to a receiver over the world's queues, as a sender does, and leaves them queued. */
async function pushed(w: World, ids: string[]): Promise<void> {
  const secret = newSecret();
  // The receiver answers 503 on a connection that is not up yet.
  await w.redis.ping();
  const queues = createQueues({ connection: w.redis, prefix: w.prefix, jobs: { attempts: 3 }, streams: ['orders'] });
  const receiver = await startReceiver({
    redis: w.redis,
    queues,
    kinds: programKinds,
    keys: redisKeys(w.prefix),
    signing: fixedSigningKeys([keyOf(secret)]),
    port: 0,
    logger: createLogger({ level: 'silent' }),
  });
  try {
    for (const id of ids) expect((await push(receiver.url, 'orders', orderRecord(id), { secrets: [secret] })).status).toBe(202);
  } finally {
    await receiver.close();
    await queues.close();
  }
}

const DAY = 86_400_000;
const placeTwo = async (w: World) => {
  for (const at of [Date.now() - 2 * DAY, Date.now() - DAY]) w.storeOrders.push(String(placeAt(storeOf(w), at).id));
};
const worlds = new WeakMap<World, Awaited<ReturnType<typeof storeWorld>>['store']>();
const storeOf = (w: World) => worlds.get(w)!;
const sinceDay = () => new Date(Date.now() - 3 * DAY).toISOString().slice(0, 10);

const ROWS: Row[] = [
  {
    name: 'an NDJSON file (import)',
    arrange: async () => ndjson([orderRecord('DS-F1'), orderRecord('DS-F2')]),
    args: ['import', 'orders', 'FILE'],
    real: [['import', 'orders', 'FILE', '--process']],
    sources: ['file'],
    writes: () => ['DS-F1', 'DS-F2'],
    synced: synced(['DS-F1', 'DS-F2']),
  },
  {
    name: 'a CSV file (import)',
    arrange: async () =>
      file(
        'counts.csv',
        'countId,location,countDate,productId,quantity\r\nDS-C1,"Main Warehouse / A-01",2026-11-20,SKU-0010,61\r\n' +
          'DS-C1,"Main Warehouse / A-01",2026-11-20,MUG-BLUE,29\r\n',
      ),
    args: ['import', 'stock-counts', 'FILE'],
    real: [['import', 'stock-counts', 'FILE', '--process']],
    sources: ['file'],
    writes: () => ['DS-C1'],
    synced: async (w) => {
      const onHand = (product: string) => w.sandbox.admin.stockOnHand('/demo/api/facility/10001', `/demo/api/product/${product}`);
      expect([onHand('SKU-0010'), onHand('MUG-BLUE')]).toEqual([61, 29]);
    },
  },
  {
    name: 'the HTTP feed (sync --once)',
    feed: { orders: [orderRecord('DS-H1'), orderRecord('DS-H2')] },
    args: ['sync', '--once'],
    sources: ['feed'],
    writes: () => ['DS-H1', 'DS-H2'],
    synced: synced(['DS-H1', 'DS-H2']),
  },
  {
    name: 'the push backlog: records pushed and waiting as jobs (sync --once)',
    feed: { orders: [orderRecord('DS-H3')] },
    arrange: (w) => pushed(w, ['DS-P1', 'DS-P2']),
    args: ['sync', '--once'],
    sources: ['queue', 'feed'],
    text: () => [
      'orders: 2 records queued before this run (pushed, imported or retried), as its workers would take them',
      'orders: 1 record in 1 page of the feed',
    ],
    writes: () => ['DS-P1', 'DS-P2', 'DS-H3'],
    synced: synced(['DS-P1', 'DS-P2', 'DS-H3']),
  },
  {
    name: "the push backlog: an earlier import's batches not yet jobs (sync --once)",
    arrange: async (w) => {
      await ok(['import', 'orders', ndjson([orderRecord('DS-B1'), orderRecord('DS-B2')])], w);
    },
    args: ['sync', '--once'],
    sources: ['queue'],
    writes: () => ['DS-B1', 'DS-B2'],
    synced: synced(['DS-B1', 'DS-B2']),
  },
  {
    name: 'the Shopify store, backfilled (import --from shopify)',
    store: true,
    arrange: placeTwo,
    args: ['import', 'orders', '--from', 'shopify', '--since', 'SINCE'],
    real: [
      ['import', 'orders', '--from', 'shopify', '--since', 'SINCE'],
      ['sync', '--once'],
    ],
    sources: ['store'],
    text: () => [`orders: 2 records in 1 page of the store, updated since ${sinceDay()}; the pull's cursor is neither read nor moved`],
    writes: (w) => w.storeOrders,
    synced: storeSynced,
  },
  {
    name: "the Shopify store's pull (sync --once)",
    store: true,
    arrange: placeTwo,
    args: ['sync', '--once'],
    sources: ['feed'],
    writes: (w) => w.storeOrders,
    synced: storeSynced,
  },
  {
    name: 'reconcile --repair',
    feed: { orders: [orderRecord('DS-R1'), orderRecord('DS-R2')] },
    arrange: syncedThenReopened('DS-R1'),
    args: ['reconcile', '--repair'],
    writes: () => ['DS-R1'],
    synced: noDrift,
  },
  {
    name: 'resync',
    feed: { orders: [orderRecord('DS-S1')] },
    arrange: syncedThenReopened('DS-S1'),
    args: ['resync', 'DS-S1'],
    writes: () => ['DS-S1'],
    synced: noDrift,
  },
];

async function worldOf(row: Row): Promise<World> {
  if (row.store) {
    const s = await storeWorld(`dry-src-${row.name.length}`, { env: { LOG_LEVEL: 'warn' } });
    const w: World = { ...s, storeOrders: [], close: () => s.close() };
    worlds.set(w, s.store);
    return w;
  }
  const stack = await startStack(row.feed ?? {}, 'dry-src');
  // Each reconcile reads every collection: the collection budget out of the way.
  stack.env.INVENTORY_COLLECTION_PER_HOUR = '360000';
  return { ...stack, storeOrders: [], close: () => stack.close() };
}

describe('a dry run, whatever the verb and the source', () => {
  let world: World | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  describe.each(ROWS)('when $name runs with --dry-run', (row) => {
    it('writes nothing to the service, queues no job, moves no cursor or mark; then the real run syncs what it planned', async () => {
      const w = (world = await worldOf(row));
      const made = await row.arrange?.(w);
      const args = (a: string[]) => a.map((x) => (x === 'FILE' ? String(made) : x === 'SINCE' ? sinceDay() : x));
      const redisBefore = await redisSnapshot(w.redis, w.prefix);
      const requests = w.sandbox.admin.requests().length;

      const dry = await runCli([...args(row.args), '--dry-run', '--json'], w.env, SLOW);
      expect(dry.code, dry.stdout + dry.stderr).toBe(0);
      const out = JSON.parse(dry.stdout) as Partial<DryRunPlan> & { plans?: DryRunPlan['records'] };
      const plan = { records: out.records ?? out.plans ?? [] } as DryRunPlan;
      expect(
        w.sandbox.admin
          .requests()
          .slice(requests)
          .filter((r) => r.method !== 'GET'),
      ).toEqual([]);
      expect(await redisSnapshot(w.redis, w.prefix)).toEqual(redisBefore);
      // The sources it read records from (the feed's other streams are empty).
      if (row.sources) expect(out.sources?.filter((s) => s.records > 0).map((s) => s.from)).toEqual(row.sources);
      const writing = plan.records.filter((r) => r.outcome === 'writes').map((r) => r.key);
      expect(writing.sort()).toEqual([...row.writes(w)].sort());
      if (row.text) {
        const printed = await runCli([...args(row.args), '--dry-run'], w.env, SLOW);
        for (const line of row.text(w)) expect(printed.stdout).toContain(line);
        expect(await redisSnapshot(w.redis, w.prefix)).toEqual(redisBefore);
      }

      const from = w.sandbox.admin.requests().length;
      for (const real of row.real ?? [row.args]) await ok(args(real), w);
      expect(loggedWrites(w.sandbox, from)).toEqual(plannedWrites(plan, w.sandbox));
      await row.synced(w);
    }, 120_000);
  });
});
