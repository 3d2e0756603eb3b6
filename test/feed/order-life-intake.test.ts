import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { orderKind } from '../../jobs/orders/order-kind.js';
import { programKinds } from '../../jobs/kinds.js';
import { importNdjson, type ImportNdjsonOptions } from '../../src/feed/importer.js';
import { loadTransforms } from '../../src/feed/load-transforms.js';
import type { Transform } from '../../src/feed/transform.js';
import { startReceiver, type Receiver } from '../../src/ingest/receiver.js';
import { fixedSigningKeys } from '../../src/ingest/signing-keys.js';
import { createLogger } from '../../src/log/logger.js';
import { waitForIdle } from '../../src/queue/drain.js';
import type { WorkerPool } from '../../src/queue/worker-pool.js';
import { keyOf, newSecret, push } from '../ingest/push-sender.js';
import { lifeExport, lifeSnapshot, lifeSnapshots, returnNotice } from '../helpers/order-life.js';
import { done, queueWorld, testKind, type QueueWorld } from '../queue/support.js';

const SECRET = newSecret();
const STORE_SECRET = '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';

let w: QueueWorld;
let dir: string;
let pool: WorkerPool;
const receivers: Receiver[] = [];
/** The records the orders jobs ran with, as their kind got them (checked against the stream's schema). */
let seen: unknown[];

beforeEach(async () => {
  w = await queueWorld('order-life-intake');
  dir = await mkdtemp(join(tmpdir(), 'order-life-'));
  seen = [];
  pool = await w.startPool([testKind('orders', async (record) => (seen.push(record), done()))], { concurrency: 4 });
});
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
  await pool.close(100);
  await w.close();
  await rm(dir, { recursive: true, force: true });
});

const idle = () => waitForIdle([w.queues.intake('orders'), w.queues.get('orders')], { pollMs: 20, signal: AbortSignal.timeout(20_000) });
const byKey = (records: unknown[]) =>
  [...records].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))) as Array<Record<string, unknown>>;
const importFile = async (name: string, text: string, o: Partial<ImportNdjsonOptions> = {}) => {
  const file = join(dir, name);
  await writeFile(file, text);
  return importNdjson({ kind: orderKind, source: file, queues: w.queues, redis: w.redis, logger: w.logger, ...o });
};

async function receiver(o: { transforms?: ReadonlyMap<string, Transform>; store?: boolean }) {
  const r = await startReceiver({
    redis: w.redis,
    queues: w.queues,
    kinds: programKinds,
    keys: w.keys,
    signing: o.store ? fixedSigningKeys([], [Buffer.from(STORE_SECRET)]) : fixedSigningKeys([keyOf(SECRET)]),
    port: 0,
    logger: createLogger({ level: 'silent' }),
    ...(o.transforms ? { transforms: o.transforms } : {}),
  });
  receivers.push(r);
  return r;
}

describe("intake of the order's life", () => {
  it('imports an NDJSON file of a snapshot and a return notice, each one job run with the record as written', async () => {
    const records = [lifeSnapshot('LIFE-1'), returnNotice('LIFE-1')];
    const result = await importFile('life.ndjson', `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
    expect(result).toMatchObject({ records: 2, queued: 2, invalid: 0 });
    await idle();
    expect(byKey(seen)).toEqual(byKey(records));
  });

  it('imports an order export (CSV) of an open order with a shipped part and a cancelled order as their snapshots', async () => {
    const result = await importFile('life.csv', `${lifeExport}\r\n`, { format: 'csv' });
    expect(result).toMatchObject({ records: 2, queued: 2, invalid: 0 });
    await idle();
    expect(byKey(seen)).toEqual(byKey(lifeSnapshots));
  });

  it('takes a pushed snapshot and return notice (POST /ingest/orders), one job each', async () => {
    const r = await receiver({});
    const records = [lifeSnapshot('LIFE-2'), returnNotice('LIFE-2')];
    const a = await push(r.url, 'orders', records, { secrets: [SECRET], id: 'wh-life-2' });
    expect(a.status).toBe(202);
    expect(a.body).toMatchObject({ records: 2, queued: 2, invalid: 0 });
    await idle();
    expect(byKey(seen)).toEqual(byKey(records));
  });

  it("takes each Shopify webhook of an order's life through TRANSFORMS=orders=shopify-orders, signed as Shopify signs", async () => {
    const transforms = await loadTransforms([{ stream: 'orders', spec: 'shopify-orders', module: false }], programKinds);
    const r = await receiver({ transforms, store: true });
    const names = ['orders-create', 'orders-updated-edited', 'orders-updated-partial', 'orders-cancelled', 'refunds-create'];
    for (const [i, name] of names.entries()) {
      const raw = readFileSync(new URL(`../fixtures/shopify/${name}.json`, import.meta.url), 'utf8');
      const signature = createHmac('sha256', STORE_SECRET).update(raw).digest('base64');
      const headers = { 'x-shopify-hmac-sha256': signature, 'x-shopify-webhook-id': `wh-shopify-life-${i}` };
      const a = await push(r.url, 'orders', undefined, { raw, headers });
      expect([name, a.status, a.body.queued, a.body.invalid]).toEqual([name, 202, 1, 0]);
    }
    await idle();
    const got = seen.map((x) => x as { orderId: string; status?: string; returns: unknown[] });
    expect(got.map((x) => [x.orderId, x.status ?? `notice of ${x.returns.length} returns`]).sort()).toEqual([
      ['5981234567002', 'notice of 2 returns'],
      ['5981234567002', 'open'],
      ['5981234567002', 'open'],
      ['5981234567002', 'open'],
      ['5981234567003', 'cancelled'],
    ]);
    const jobs = await w.queues.get('orders').getJobs(['completed']);
    expect(jobs.map((j) => j.data.upstreamId).sort()).toEqual(names.map((_, i) => `wh-shopify-life-${i}`));
  });
});
