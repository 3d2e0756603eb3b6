import { UnrecoverableError, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALL_FAILED } from '../../src/queue/hold/call-hold-scripts.js';
import { recordRefusal } from '../../src/queue/hold/refusal-state.js';
import { noteWait } from '../../src/queue/wait/wait-store.js';
import { redisKeys } from '../../src/redis/connection.js';
import { runScript } from '../../src/redis/scripts.js';
import { accountsWorld, type AccountsWorld, type TestAccount } from '../accounts/accounts-kit.js';
import { eventually, freePort, type WorkerProcess } from '../cli/worker-process.js';
import { orderRecord } from '../helpers/order-records.js';
import { alertRules, DEPLOYMENT_ROW, exportedNames, namesRead, panelQueries, rowPanels, withAccountsFileOnly } from './deploy-files.js';
import { startPrometheus, type PrometheusServer } from './prometheus-server.js';

/**
 * Issue 56, an operator of many accounts under Prometheus: a `worker` with ACCOUNTS_FILE, scraped by a real Prometheus
 * with the shipped rules. Of three accounts, all closed in the process (pushed only: no feed opens them), acme is in
 * trouble as a turn that ended would leave it: a job failed for good, its orders stream paused by its breaker with 2
 * jobs held, a record waiting for a product the service lacks, a call of its service held; able and zeta are well.
 * The deployment's rules and panels read the sweep's summary of them from the worker's /metrics.
 */
let world: AccountsWorld;
let worker: WorkerProcess;
let prometheus: PrometheusServer;

async function pushedOnly(name: string): Promise<TestAccount> {
  const a = await world.add(name);
  delete a.settings.UPSTREAM_URL;
  delete a.settings.UPSTREAM_TOKEN;
  return a;
}

/** acme's troubles, in Redis before the worker starts (its first sweep reads them). */
async function troubleAcme(acme: TestAccount): Promise<void> {
  const failing = new Worker(
    'orders',
    async () => {
      throw new UnrecoverableError('test: order FAIL-1 was refused');
    },
    { connection: world.redis.duplicate(), prefix: acme.prefix },
  );
  try {
    await acme.orders.add('order', { record: orderRecord('FAIL-1'), source: 'push' }, { jobId: 'FAIL-1', attempts: 1 });
    await eventually(async () => (await acme.orders.getJobCounts('failed')).failed === 1, 10_000, 'FAIL-1 failed');
  } finally {
    await failing.close();
  }
  const keys = redisKeys(acme.prefix);
  await acme.orders.addBulk(['HELD-1', 'HELD-2'].map((id) => ({ name: 'order', data: { record: orderRecord(id), source: 'push' } })));
  await recordRefusal(world.redis, keys, 'orders', { threshold: 1, code: 'FORBIDDEN', reason: '[FORBIDDEN] suspended', jobId: 'HELD-0' });
  await acme.orders.pause();
  await noteWait(world.redis, keys, 'orders', 'W-1', { refs: [{ type: 'product', name: 'MUG-MISSING' }], since: Date.now() });
  const failedArgs = ['shipment-create', Date.now() - 90_000, 3, '[TRANSIENT] 503', 'TRANSIENT', 2000, 30_000, ''];
  for (let i = 0; i < 3; i++) await runScript(world.redis, CALL_FAILED, [1, keys.callHolds(), ...failedArgs]);
}

beforeAll(async () => {
  world = await accountsWorld('deploy-prom');
  const acme = await pushedOnly('acme');
  await pushedOnly('able');
  await pushedOnly('zeta');
  await troubleAcme(acme);
  world.writeFile(['able', 'acme', 'zeta']);
  const port = await freePort();
  prometheus = await startPrometheus([`127.0.0.1:${port}`]);
  worker = world.startWorker({ ACCOUNT_IDLE_SECONDS: '1', WORKER_HTTP_PORT: String(port), WORKER_HTTP_HOST: '127.0.0.1' });
  await worker.httpUrl;
  // The first sweep's summary, scraped.
  await eventually(async () => (await prometheus.query('isync_deployment_accounts')).length === 2, 20_000, 'the summary in Prometheus');
}, 60_000);
afterAll(async () => {
  await prometheus?.close();
  await world?.close();
});

/** An expression's answer, one number a series by its labels (job aside): `{}` for one without labels. */
async function evaluate(expr: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const s of await prometheus.query(expr)) {
    const { job: _job, ...labels } = s.metric;
    out[JSON.stringify(labels)] = Number(s.value[1]);
  }
  return out;
}

describe('a worker with ACCOUNTS_FILE under Prometheus: the deployment rules and panels', () => {
  it('exports every metric name of ACCOUNTS_FILE that an alerting rule or a Grafana panel reads', async () => {
    const names = exportedNames(await (await fetch(`${await worker.httpUrl}/metrics`)).text());
    // The others are held by worker-prometheus.test.ts (a worker of one account, pushes taken).
    const used = namesRead().filter((u) => withAccountsFileOnly(u.name));
    expect(used.filter((u) => !names.has(u.name)).map((u) => `${u.name} (${u.where})`)).toEqual([]);
    // The deployment's figures and the accounts' trouble.
    expect(new Set(used.map((u) => u.name)).size).toBe(7);
  });

  it("answers each deployment rule's expression from the worker's figures: acme in trouble, every reason once", async () => {
    const rules = alertRules().filter((r) => r.group === 'inventory-sync-deployment');
    const answers: Record<string, Record<string, number>> = {};
    for (const r of rules) answers[r.alert] = await evaluate(r.expr);
    expect(answers).toEqual({
      IsyncDeploymentAccountsInTrouble: { '{}': 1 },
      IsyncDeploymentJobsFailing: { '{}': 1 },
      IsyncDeploymentQueuesPaused: { '{}': 1 },
      IsyncDeploymentCallsHeld: { '{}': 1 },
      // One record waits since the start: not growing.
      IsyncDeploymentRecordsWaitingGrow: {},
      // Swept a moment ago.
      IsyncDeploymentSummaryStale: {},
    });
  });

  it('fires the failures alert at once, and holds the accounts-in-trouble alert pending, saying why and naming acme', async () => {
    // acme is shown by name once the worker has read its series (a closed account in trouble: within a few scrapes).
    await eventually(async () => (await prometheus.query('isync_account_trouble{account="acme"}')).length > 0, 20_000, 'acme shown');
    const alerts = async () => new Map((await prometheus.alerts()).map((a) => [a.labels.alertname!, a] as const));
    await eventually(async () => (await alerts()).get('IsyncDeploymentJobsFailing')?.state === 'firing', 10_000, 'the failures alert');
    let trouble = (await alerts()).get('IsyncDeploymentAccountsInTrouble');
    await eventually(
      async () => (trouble = (await alerts()).get('IsyncDeploymentAccountsInTrouble'))?.annotations.description?.includes('acme') === true,
      10_000,
      `acme named (${trouble?.annotations.description})`,
    );
    expect(trouble!.state).toBe('pending');
    expect(trouble!.labels).toEqual({ alertname: 'IsyncDeploymentAccountsInTrouble', job: 'inventory-sync', severity: 'warning' });
    expect(trouble!.annotations.summary).toBe('1 accounts of the deployment in trouble for 15 minutes');
    expect(trouble!.annotations.description).toMatch(
      /^Over every account: 1 queues paused, 1 calls held, 1 jobs failed for good in the last hour\. Shown in \/metrics: acme \(/,
    );
    for (const reason of ['call-held', 'jobs-failing', 'stream-paused'])
      expect(trouble!.annotations.description).toContain(`acme (${reason})`);
  });

  it('shows every account in the Deployment panels: 1 in trouble of 3, jobs by state, the paused queue, the held call', async () => {
    const answers: Record<string, Record<string, number>> = {};
    for (const q of panelQueries(rowPanels(DEPLOYMENT_ROW))) answers[`${q.panel}: ${q.expr}`] = await evaluate(q.expr);
    const byPanel = (title: string) =>
      Object.entries(answers)
        .filter(([k]) => k.startsWith(`${title}: `))
        .map(([, v]) => v);
    expect(byPanel('Accounts in trouble')).toEqual([{ '{}': 1 }, { '{}': 3 }]);
    expect(byPanel('Queues paused')).toEqual([{ '{}': 1 }]);
    expect(byPanel('Calls held')).toEqual([{ '{}': 1 }]);
    expect(byPanel('Records waiting for a reference, every account')).toEqual([{ '{}': 1 }]);
    expect(byPanel('Jobs of every account, by state')).toEqual([
      {
        '{"state":"ready"}': 0,
        '{"state":"held"}': 2,
        '{"state":"failed"}': 1,
        '{"state":"failed-recent"}': 1,
        '{"state":"untold"}': 0,
      },
    ]);
    const [age] = byPanel('Age of the summary');
    expect(age!['{}']).toBeGreaterThanOrEqual(0);
    expect(age!['{}']).toBeLessThan(60);
    // acme alone, for the summary's reasons (more, were a turn of it open: its look again comes a minute after the start).
    const [named] = byPanel('Accounts in trouble, shown by name, and why');
    expect(named).toMatchObject({
      '{"account":"acme","reason":"call-held"}': 1,
      '{"account":"acme","reason":"jobs-failing"}': 1,
      '{"account":"acme","reason":"stream-paused"}': 1,
    });
    expect(Object.keys(named!).filter((k) => !k.startsWith('{"account":"acme",'))).toEqual([]);
    // Every panel of the row answered above.
    expect(Object.keys(answers)).toHaveLength(8);
  });
});
