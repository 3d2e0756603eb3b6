import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { programKinds } from '../../jobs/kinds.js';
import { startReceiver, type Receiver, type ReceiverOptions } from '../../src/ingest/receiver.js';
import { fixedSigningKeys, signingKeys } from '../../src/ingest/signing-keys.js';
import { createLogger } from '../../src/log/logger.js';
import { countRecord, stockAt } from '../helpers/count-record.js';
import { testWorld, type TestWorld } from '../helpers/test-world.js';
import { keyOf, newSecret, push } from './push-sender.js';

const SECRET = newSecret();
const STORE_SECRET = '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';

describe('the push receiver', () => {
  let world: TestWorld;
  const receivers: Receiver[] = [];

  async function receiverWith(o: Partial<ReceiverOptions>): Promise<Receiver> {
    const r = await startReceiver({
      redis: world.redis,
      queues: world.queues,
      kinds: programKinds,
      keys: world.keys,
      signing: fixedSigningKeys([keyOf(SECRET)]),
      port: 0,
      logger: createLogger({ level: 'silent' }),
      ...o,
    });
    receivers.push(r);
    return r;
  }

  beforeAll(async () => {
    world = await testWorld('ingest-schemes', { streams: ['stock-counts'] });
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await world?.close();
  });

  describe('when a stock count is pushed', () => {
    it('is processed by the running workers at once, no scheduled pull needed', async () => {
      const receiver = await receiverWith({});
      const count = countRecord('PUSHC-1', 'Main Warehouse / A-03', '2026-11-20', [['SKU-0010', 17]]);
      expect((await push(receiver.url, 'stock-counts', count, { secrets: [SECRET] })).status).toBe(202);
      await world.idle();
      expect(stockAt(world, 'A-03', 'SKU-0010')).toBe(17);
    });
  });

  describe("when a store signs its webhooks (Shopify's form)", () => {
    it('takes a body whose X-Shopify-Hmac-Sha256 matches INGEST_HMAC_SECRET, keyed on X-Shopify-Webhook-Id', async () => {
      const receiver = await receiverWith({ signing: fixedSigningKeys([], [Buffer.from(STORE_SECRET)]) });
      const count = countRecord('PUSHC-2', 'Main Warehouse / A-04', '2026-11-20', [['SKU-0010', 3]]);
      const raw = JSON.stringify(count);
      const hmac = (secret: string) => createHmac('sha256', secret).update(raw).digest('base64');
      const send = (signature: string) =>
        push(receiver.url, 'stock-counts', undefined, {
          raw,
          headers: { 'x-shopify-hmac-sha256': signature, 'x-shopify-webhook-id': 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043' },
        });
      expect((await send(hmac('another-secret'))).status).toBe(401);
      const a = await send(hmac(STORE_SECRET));
      expect(a.status).toBe(202);
      expect(a.body).toMatchObject({ deliveryId: 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043', queued: 1 });
      expect((await send(hmac(STORE_SECRET))).body).toMatchObject({ duplicate: true });
    });
  });

  describe('when INGEST_SECRET_FILE is rotated', () => {
    it('takes pushes signed with the new secrets without a restart, and never those signed with a removed one', async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'isync-ingest-')), 'ingest-secret');
      const [old, next] = [newSecret(), newSecret()];
      writeFileSync(file, `${old}\n`);
      const changes: string[][] = [];
      const signing = signingKeys({ secret: old, secretFile: file, recheckMs: 0, onChange: (v) => changes.push(v) });
      const receiver = await receiverWith({ signing });
      const count = (id: string) => countRecord(id, 'Main Warehouse / A-05', '2026-11-20', [['SKU-0010', 1]]);
      expect((await push(receiver.url, 'stock-counts', count('ROTF-1'), { secrets: [next] })).status).toBe(401);
      // The rotation: both while senders move to the new one, then the new one alone.
      writeFileSync(file, `${old},${next}\n`);
      expect((await push(receiver.url, 'stock-counts', count('ROTF-2'), { secrets: [next] })).status).toBe(202);
      expect((await push(receiver.url, 'stock-counts', count('ROTF-3'), { secrets: [old] })).status).toBe(202);
      writeFileSync(file, `${next}\n`);
      expect((await push(receiver.url, 'stock-counts', count('ROTF-4'), { secrets: [old] })).status).toBe(401);
      expect((await push(receiver.url, 'stock-counts', count('ROTF-5'), { secrets: [next] })).status).toBe(202);
      // The logger learns each new value before anything could log it.
      expect(changes.flat()).toEqual(expect.arrayContaining([next]));
    });
  });
});
