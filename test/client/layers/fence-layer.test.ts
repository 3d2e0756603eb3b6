import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Layer } from '../../../src/client/layers/call-layers.js';
import { fenceLayer } from '../../../src/client/layers/fence-layer.js';
import { ServiceClient } from '../../../src/client/service-client.js';
import { takeLease } from '../../../src/queue/lease/job-lease.js';
import { LeaseLostError } from '../../../src/queue/lease/lease-lost.js';
import { redisKeys, type RedisConnection } from '../../../src/redis/connection.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/sandbox.js';
import { connectTarget, deletePrefix, uniquePrefix } from '../../helpers/redis.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Holds every request for `ms` before passing it on, as the budget's wait does (a layer inside the fence). */
const waiting =
  (ms: number, during?: () => Promise<void>): Layer =>
  (next) =>
  async (req) => {
    await Promise.all([sleep(ms), during?.()]);
    return next(req);
  };

describe('the fence layer', () => {
  let sandbox: Sandbox;
  let client: ServiceClient;
  let redis: RedisConnection;
  const prefix = uniquePrefix('fence');
  const keys = redisKeys(prefix);
  let origin = '';
  let mug = { productId: '', productUrl: '' };
  const order = (id: string) => ({
    orderId: id,
    orderTypeId: 'SALES_ORDER' as const,
    originFacilityUrl: origin,
    orderItemList: [{ ...mug, unitPrice: 9.5, quantity: 1 }],
  });
  const take = (key: string, ttlMs = 3_000) => takeLease(redis, keys, { stream: 'orders', key, jobId: 'job-1', ttlMs });
  const posts = () => sandbox.admin.requests().filter((r) => r.method === 'POST').length;
  beforeAll(async () => {
    redis = connectTarget();
    sandbox = await startSandbox({ data: 'demo' });
    client = new ServiceClient({ baseUrl: sandbox.url, account: sandbox.account, apiKey: sandbox.key, apiSecret: sandbox.secret });
    origin = (await client.listFacilities()).find((f) => f.facilityName === 'Main Warehouse')!.facilityUrl;
    const found = (await client.listProducts()).find((p) => p.productId === 'MUG-RED')!;
    mug = { productId: found.productId, productUrl: found.productUrl };
  });
  afterAll(async () => {
    await client.close();
    await sandbox.close();
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  it("sends a write of the lease's execution, its intent recorded; reads pass unfenced", async () => {
    const lease = (await take('OWN'))!;
    const fenced = client.with(fenceLayer(lease));
    await fenced.createOrder(order('FENCE-OWN'));
    expect(await redis.hget(keys.fence('orders', 'OWN'), 'call')).toBe('createOrder');
    await lease.release(true);
    // Released, the lease is no one's: a read still goes, a write does not.
    expect((await fenced.listFacilities()).length).toBeGreaterThan(0);
    await expect(fenced.createOrder(order('FENCE-OWN-2'))).rejects.toBeInstanceOf(LeaseLostError);
  });

  it('sends nothing for an execution whose job was taken again', async () => {
    const zombie = (await take('TAKEN'))!;
    await take('TAKEN');
    const before = posts();
    await expect(client.with(fenceLayer(zombie)).createOrder(order('FENCE-TAKEN'))).rejects.toMatchObject({ code: 'LEASE_LOST' });
    expect(posts()).toBe(before);
  });

  it('fences again as the request leaves when the check is older than its bound, and sends nothing once lost', async () => {
    const zombie = (await take('LATE', 600))!;
    // Checked, then held past the bound (200 ms) while the job is taken again: the second check at the send refuses.
    const held = client.with(waiting(350, async () => void (await take('LATE', 600)))).with(fenceLayer(zombie));
    const before = posts();
    await expect(held.createOrder(order('FENCE-LATE'))).rejects.toBeInstanceOf(LeaseLostError);
    expect(posts()).toBe(before);
    expect(sandbox.admin.state().orders.some((o) => o.orderId === 'FENCE-LATE')).toBe(false);
  });

  it('sends after a wait within the bound without a second round trip, and after a longer one with it', async () => {
    const lease = (await take('WAITS', 3_000))!;
    await client.with(waiting(50)).with(fenceLayer(lease)).createOrder(order('FENCE-SHORT'));
    const at = Number(await redis.hget(keys.fence('orders', 'WAITS'), 'at'));
    await client.with(waiting(1_100)).with(fenceLayer(lease)).createOrder(order('FENCE-LONG'));
    expect(Number(await redis.hget(keys.fence('orders', 'WAITS'), 'at')) - at).toBeGreaterThanOrEqual(1_100);
    await lease.release(true);
  });
});
