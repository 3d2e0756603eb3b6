import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Credentials } from '../../src/client/credentials.js';
import type { ServiceError } from '../../src/client/answers/errors.js';
import { ServiceClient } from '../../src/client/service-client.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';

const OLD = { key: 'key-old-51c3', secret: 'secret-old-a83f20' };
const NEW = { key: 'key-new-7d9e', secret: 'secret-new-04b6c1' };
const dir = mkdtempSync(join(tmpdir(), 'isync-credentials-'));
const keyFile = join(dir, 'key');
const secretFile = join(dir, 'secret');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a file as Kubernetes does: a new file renamed over the old one. */
function rewrite(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

let sandbox: Sandbox;
let client: ServiceClient;
let credentials: Credentials;
let changes: Array<[string, string]>;

beforeEach(async () => {
  sandbox = await startSandbox({ port: 0, data: 'demo', key: OLD.key, secret: OLD.secret });
  rewrite(keyFile, `${OLD.key}\n`);
  rewrite(secretFile, `${OLD.secret}\n`);
  changes = [];
  credentials = new Credentials({ ...OLD, keyFile, secretFile, onChange: (k, s) => changes.push([k, s]) });
  client = new ServiceClient({ baseUrl: sandbox.url, account: sandbox.account, credentials, readRetries: 0 });
});
afterEach(async () => {
  await client.close();
  await sandbox.close();
});

const statuses = () => sandbox.admin.requests().map((r) => r.status);

describe('service credentials read from files', () => {
  describe('when the files and the service are rotated to a new key', () => {
    it('answers the 401 by reading the files again and sending the request once more at once', async () => {
      expect(await client.listFacilities()).not.toHaveLength(0);
      rewrite(keyFile, `${NEW.key}\n`);
      rewrite(secretFile, `${NEW.secret}\r\n`);
      sandbox.admin.setCredentials(NEW);
      expect(await client.listFacilities()).not.toHaveLength(0);
      expect(statuses()).toEqual([200, 401, 200]);
      expect(changes).toEqual([[NEW.key, NEW.secret]]);
      // Every later request sends the new ones from the start, writes too, each once.
      const mug = (await client.listProducts()).find((p) => p.productId === 'MUG-RED')!;
      const main = (await client.listFacilities()).find((f) => f.facilityName === 'Main Warehouse')!;
      await client.createOrder({
        orderId: 'ROT-1',
        orderTypeId: 'SALES_ORDER',
        originFacilityUrl: main.facilityUrl,
        orderItemList: [{ productId: mug.productId, productUrl: mug.productUrl, unitPrice: 1, quantity: 1 }],
      });
      expect(statuses()).toEqual([200, 401, 200, 200, 200, 200]);
      expect(sandbox.admin.counters().creates.order).toBe(1);
      expect(credentials.secretForms()).toEqual(expect.arrayContaining([OLD.key, OLD.secret, NEW.key, NEW.secret]));
    });

    it('sends a write refused with the old key once more with the new one, and it is applied once', async () => {
      const main = (await client.listFacilities()).find((f) => f.facilityName === 'Main Warehouse')!;
      const mug = (await client.listProducts()).find((p) => p.productId === 'MUG-RED')!;
      rewrite(keyFile, NEW.key);
      rewrite(secretFile, NEW.secret);
      sandbox.admin.setCredentials(NEW);
      await client.createOrder({
        orderId: 'ROT-2',
        orderTypeId: 'SALES_ORDER',
        originFacilityUrl: main.facilityUrl,
        orderItemList: [{ productId: mug.productId, productUrl: mug.productUrl, unitPrice: 1, quantity: 1 }],
      });
      expect(statuses()).toEqual([200, 200, 401, 200]);
      expect(sandbox.admin.counters().creates.order).toBe(1);
    });
  });

  describe('when the service refuses the key and the files hold the same one', () => {
    it('fails UNAUTHORIZED after one request, the credentials marked refused, no secret in the error', async () => {
      sandbox.admin.setCredentials(NEW);
      const err = (await client.listFacilities().catch((e: unknown) => e)) as ServiceError;
      expect(err.code).toBe('UNAUTHORIZED');
      expect(statuses()).toEqual([401]);
      expect(credentials.refusedNow).toBe(true);
      expect(changes).toEqual([]);
      const text = `${err.message} ${err.hint ?? ''} ${JSON.stringify(err)}`;
      for (const s of [OLD.key, OLD.secret, NEW.key, NEW.secret]) expect(text).not.toContain(s);
      // Rotated later: no longer the refused ones.
      rewrite(keyFile, NEW.key);
      rewrite(secretFile, NEW.secret);
      expect(await credentials.reload()).toBe(true);
      expect(credentials.refusedNow).toBe(false);
    });
  });

  describe('when a file cannot be read again', () => {
    it('keeps the values read before and says so once, naming the variable and the path', async () => {
      const problems: string[] = [];
      const c = new Credentials({ ...OLD, keyFile: join(dir, 'gone'), secretFile, onProblem: (l) => problems.push(l) });
      expect(await c.reload()).toBe(false);
      expect(await c.reload()).toBe(false);
      expect(c.authorization()).toBe(`Basic ${Buffer.from(`${OLD.key}:${OLD.secret}`).toString('base64')}`);
      expect(problems).toEqual([`INVENTORY_API_KEY_FILE: cannot read ${join(dir, 'gone')} (ENOENT): the value read before stays in use`]);
    });
  });
});
