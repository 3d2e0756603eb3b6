import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { sandboxAdminClient } from '../../src/sandbox/admin-client.js';

describe('the sandbox request log', () => {
  let sandbox: Sandbox;
  const auth = () => `Basic ${Buffer.from(`${sandbox.key}:${sandbox.secret}`).toString('base64')}`;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0 });
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('lists each API request with its method, path, status and POST body, and forgets them on reset', async () => {
    await fetch(`${sandbox.url}/${sandbox.account}/api/facility?limit=2`, { headers: { authorization: auth() } });
    await fetch(`${sandbox.url}/${sandbox.account}/api/order`, {
      method: 'POST',
      headers: { authorization: auth(), 'content-type': 'application/json' },
      body: '{"orderId":""}',
    });
    await fetch(`${sandbox.url}/${sandbox.account}/api/order/NOPE`, { headers: { authorization: 'Basic eDp5' } });
    const log = await sandboxAdminClient(sandbox).requests();
    expect(log.map((r) => [r.method, r.path, r.query, r.status])).toEqual([
      ['GET', `/${sandbox.account}/api/facility`, 'limit=2', 200],
      ['POST', `/${sandbox.account}/api/order`, '', 400],
      ['GET', `/${sandbox.account}/api/order/NOPE`, '', 401],
    ]);
    expect(log[1]?.body).toEqual({ orderId: '' });
    sandbox.admin.reset();
    expect(sandbox.admin.requests()).toEqual([]);
  });
});
