import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../cli/stack.js';
import { eventually, freePort, startWorkerProcess, type WorkerProcess } from '../cli/worker-process.js';
import { exportedNames, namesRead, withAccountsFileOnly } from './deploy-files.js';
import { startPrometheus, type PromAlert, type PrometheusServer } from './prometheus-server.js';

/** A record the service cannot take: its product is unknown, so its job fails for good at once (BAD_RECORD). */
const unknownProduct = {
  orderId: 'PROM-1',
  origin: 'Main Warehouse',
  lines: [{ productId: 'MUG-ORANGE', quantity: 1, unitPrice: 10, location: 'Main Warehouse / A-01' }],
};
const INGEST_SECRET = `whsec_${Buffer.from('a-push-secret-for-the-metrics-test').toString('base64')}`;

describe('a worker under Prometheus', () => {
  let stack: Stack;
  let worker: WorkerProcess;
  let prometheus: PrometheusServer;

  beforeAll(async () => {
    stack = await startStack({ orders: [] }, 'prom');
    const metricsPort = await freePort();
    // The shipped rules as they are, a scrape of the worker every second, rules looked at every second.
    prometheus = await startPrometheus([`127.0.0.1:${metricsPort}`]);
    worker = startWorkerProcess({
      ...stack.env,
      // WAIT_FOR_REFERENCE_HOURS=0: a record of a product the service lacks fails at once (no wait: docs/runbooks/bad-records.md).
      WAIT_FOR_REFERENCE_HOURS: '0',
      LOG_LEVEL: 'info',
      ORDER_POLL_SECONDS: '1',
      WORKER_HTTP_PORT: String(metricsPort),
      INGEST_PORT: String(await freePort()),
      INGEST_SECRET,
    });
    await worker.httpUrl;
  }, 90_000);

  afterAll(async () => {
    await prometheus?.close();
    await worker?.stop();
    await stack?.close();
  });

  it('exports every metric name that an alerting rule or a Grafana panel reads (those of ACCOUNTS_FILE aside)', async () => {
    const text = await (await fetch(`${await worker.httpUrl}/metrics`)).text();
    const names = exportedNames(text);
    // `up` is Prometheus's own series of each target, not one a target exports. The deployment's figures and the
    // accounts' are served with ACCOUNTS_FILE alone: worker-accounts-prometheus.test.ts holds them.
    const used = namesRead().filter((u) => u.name !== 'up' && !withAccountsFileOnly(u.name));
    const missing = used.filter((u) => !names.has(u.name)).map((u) => `${u.name} (${u.where})`);
    expect(missing).toEqual([]);
    // Read from the whole text, this is not an empty check: the rules alone read a dozen of them.
    expect(new Set(used.map((u) => u.name)).size).toBeGreaterThan(20);
  });

  it("fires the failures alert once a stream's job fails for good, naming the stream", async () => {
    // Prometheus has the worker's failure counter at 0 first: the failure is then an increase.
    await eventually(
      async () => (await prometheus.query('isync_jobs_total{stream="orders",outcome="failed"} == 0')).length === 1,
      30_000,
      'a scrape',
    );
    stack.feed.append('orders', [unknownProduct]);
    let firing: PromAlert | undefined;
    await eventually(
      async () => {
        firing = (await prometheus.alerts()).find((a) => a.labels.alertname === 'IsyncJobsFailing' && a.state === 'firing');
        return firing !== undefined;
      },
      45_000,
      `IsyncJobsFailing firing (Prometheus said: ${prometheus.log() || 'nothing'})`,
    );
    expect(firing!.labels).toMatchObject({ alertname: 'IsyncJobsFailing', stream: 'orders', severity: 'warning' });
    expect(firing!.annotations.summary).toMatch(/^orders: jobs failed for good \(about \d+(\.\d+)? in the last 15 minutes\)$/);
    expect(firing!.annotations.description).toContain('inventory-sync jobs list --state failed --stream orders');
    // The one it names failed in the worker: a bad record, for good.
    const failed = await stack.redis.zcard(`${stack.prefix}:orders:failed`);
    expect(failed).toBe(1);
  }, 90_000);
});
