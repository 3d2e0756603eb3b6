import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startStack, type Stack } from '../cli/stack.js';
import { eventually, freePort, startWorkerProcess, type WorkerProcess } from '../cli/worker-process.js';
import { alertRules, filesOf, metricNamesIn, panelQueries, RULES_DIR } from './deploy-files.js';

/** A record the service cannot take: its product is unknown, so its job fails for good at once (BAD_RECORD). */
const unknownProduct = {
  orderId: 'PROM-1',
  origin: 'Main Warehouse',
  lines: [{ productId: 'MUG-ORANGE', quantity: 1, unitPrice: 10, location: 'Main Warehouse / A-01' }],
};
const INGEST_SECRET = `whsec_${Buffer.from('a-push-secret-for-the-metrics-test').toString('base64')}`;

/** Names of the metrics a /metrics text declares (`# TYPE`), with a histogram's and a summary's series. */
function exported(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, type] = m as unknown as [string, string, string];
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
  }
  return names;
}

interface PromAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: string;
}

describe('a worker under Prometheus', () => {
  let stack: Stack;
  let worker: WorkerProcess;
  let prometheus: ChildProcess;
  let promUrl: string;
  let metricsPort: number;
  let dir: string;
  let promLog = '';

  beforeAll(async () => {
    stack = await startStack({ orders: [] }, 'prom');
    metricsPort = await freePort();
    const promPort = await freePort();
    promUrl = `http://127.0.0.1:${promPort}`;
    dir = mkdtempSync(join(tmpdir(), 'isync-prom-'));
    // The shipped rules as they are, a scrape of the worker every second, rules looked at every second.
    const config = [
      'global:',
      '  scrape_interval: 1s',
      '  evaluation_interval: 1s',
      'rule_files:',
      ...filesOf(RULES_DIR, '.yml').map((f) => `  - ${f}`),
      'scrape_configs:',
      '  - job_name: inventory-sync',
      '    static_configs:',
      `      - targets: ['127.0.0.1:${metricsPort}']`,
    ].join('\n');
    writeFileSync(join(dir, 'prometheus.yml'), `${config}\n`);
    prometheus = spawn(
      inject('prometheusPath'),
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    prometheus.stderr?.on('data', (d: Buffer) => (promLog += d.toString()));
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
    await eventually(async () => (await fetch(`${promUrl}/-/ready`).catch(() => undefined))?.ok === true, 30_000, 'Prometheus ready');
  }, 90_000);

  afterAll(async () => {
    prometheus?.kill('SIGTERM');
    await worker?.stop();
    await stack?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('exports every metric name that an alerting rule or a Grafana panel reads', async () => {
    const text = await (await fetch(`${await worker.httpUrl}/metrics`)).text();
    const names = exported(text);
    const used = [
      ...alertRules().flatMap((r) => [r.expr, ...r.queries].flatMap((e) => metricNamesIn(e).map((n) => ({ n, where: `rule ${r.alert}` })))),
      ...panelQueries().flatMap((p) => metricNamesIn(p.expr).map((n) => ({ n, where: `panel "${p.panel}"` }))),
    ];
    // `up` is Prometheus's own series of each target, not one a target exports.
    const missing = used.filter((u) => u.n !== 'up' && !names.has(u.n)).map((u) => `${u.n} (${u.where})`);
    expect(missing).toEqual([]);
    // Read from the whole text, this is not an empty check: the rules alone read a dozen of them.
    expect(new Set(used.map((u) => u.n)).size).toBeGreaterThan(20);
  });

  it("fires the failures alert once a stream's job fails for good, naming the stream", async () => {
    // Prometheus has the worker's failure counter at 0 first: the failure is then an increase.
    const query = async (q: string) =>
      ((await (await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(q)}`)).json()) as { data: { result: unknown[] } }).data
        .result;
    await eventually(async () => (await query('isync_jobs_total{stream="orders",outcome="failed"} == 0')).length === 1, 30_000, 'a scrape');
    stack.feed.append('orders', [unknownProduct]);
    let firing: PromAlert | undefined;
    await eventually(
      async () => {
        const res = (await (await fetch(`${promUrl}/api/v1/alerts`)).json()) as { data: { alerts: PromAlert[] } };
        firing = res.data.alerts.find((a) => a.labels.alertname === 'IsyncJobsFailing' && a.state === 'firing');
        return firing !== undefined;
      },
      45_000,
      `IsyncJobsFailing firing (Prometheus said: ${promLog || 'nothing'})`,
    );
    expect(firing!.labels).toMatchObject({ alertname: 'IsyncJobsFailing', stream: 'orders', severity: 'warning' });
    expect(firing!.annotations.summary).toMatch(/^orders: jobs failed for good \(about \d+(\.\d+)? in the last 15 minutes\)$/);
    expect(firing!.annotations.description).toContain('inventory-sync jobs list --state failed --stream orders');
    // The one it names failed in the worker: a bad record, for good.
    const failed = await stack.redis.zcard(`${stack.prefix}:orders:failed`);
    expect(failed).toBe(1);
  }, 90_000);
});
