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

  describe('when a budget counts the requests', () => {
    let budgeted: Sandbox;
    let now = Date.UTC(2026, 11, 6, 16, 0, 30);
    beforeAll(async () => {
      budgeted = await startSandbox({ port: 0, budgets: { post: { limit: 2, windowMs: 60_000 } }, clock: () => now });
    });
    afterAll(async () => {
      await budgeted.close();
    });

    it('says when each request spent the budget, and nothing for one refused or of no budget', async () => {
      const authorization = `Basic ${Buffer.from(`${budgeted.key}:${budgeted.secret}`).toString('base64')}`;
      const post = () =>
        fetch(`${budgeted.url}/${budgeted.account}/api/order`, {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json' },
          body: '{"orderId":""}',
        });
      const spentAt: number[] = [];
      for (const at of [0, 10_000, 20_000]) {
        now = Date.UTC(2026, 11, 6, 16, 0, 30) + at;
        spentAt.push(now);
        await post();
      }
      await fetch(`${budgeted.url}/${budgeted.account}/api/facility`, { headers: { authorization } });
      const log = budgeted.admin.requests();
      expect(log.map((r) => [r.method, r.status, r.spentAt])).toEqual([
        ['POST', 400, spentAt[0]],
        ['POST', 400, spentAt[1]],
        ['POST', 429, undefined],
        ['GET', 200, undefined],
      ]);
    });
  });
});
