import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics/metrics.js';
import { startWorkerHttp, type ReadyCheck, type WorkerHttp } from '../../src/metrics/worker-http.js';

/** /readyz of a process running several accounts (worker with ACCOUNTS_FILE): each account by name, and one status. */
describe('worker HTTP endpoints with several accounts', () => {
  let http: WorkerHttp | undefined;
  afterEach(async () => {
    await http?.close();
  });

  const check =
    (name: string, ok: boolean, detail?: string): ReadyCheck =>
    async () => ({ name, ok, ...(detail ? { detail } : {}) });

  async function readyz(state: Record<string, { writes: boolean; workers: boolean; held?: string }>) {
    http = await startWorkerHttp({
      host: '127.0.0.1',
      port: 0,
      registry: createMetrics({ defaultMetrics: false }).registry,
      readiness: [check('redis', true)],
      accounts: () =>
        Object.entries(state).map(([account, s]) => ({
          account,
          readiness: [check('redis-writes', s.writes), check('workers', s.workers), check('streams', true, s.held)],
        })),
      accountOnly: ['redis-writes'],
    });
    const res = await fetch(`${http.url}/readyz`);
    const body = (await res.json()) as { status: string; accounts: Array<{ account: string; status: string }> };
    await http.close();
    http = undefined;
    return { code: res.status, status: body.status, accounts: Object.fromEntries(body.accounts.map((a) => [a.account, a.status])) };
  }

  it("is ready with an account's stream held, naming it", async () => {
    const r = await readyz({
      acme: { writes: true, workers: true, held: 'orders paused since ...' },
      globex: { writes: true, workers: true },
    });
    expect(r).toEqual({ code: 200, status: 'ready', accounts: { acme: 'ready', globex: 'ready' } });
  });

  it("stays ready when one account's writes are refused (its node), not when every account's are", async () => {
    expect(await readyz({ acme: { writes: false, workers: true }, globex: { writes: true, workers: true } })).toEqual({
      code: 200,
      status: 'ready',
      accounts: { acme: 'not ready', globex: 'ready' },
    });
    expect(await readyz({ acme: { writes: false, workers: true }, globex: { writes: false, workers: true } })).toMatchObject({
      code: 503,
      status: 'not ready',
    });
  });

  it("is not ready when one account's worker stopped (a restart helps), as one account's worker is not", async () => {
    expect(await readyz({ acme: { writes: true, workers: false }, globex: { writes: true, workers: true } })).toEqual({
      code: 503,
      status: 'not ready',
      accounts: { acme: 'not ready', globex: 'ready' },
    });
  });
});
