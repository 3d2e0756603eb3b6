import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { eventually, freePort } from '../cli/worker-process.js';
import { filesOf, RULES_DIR } from './deploy-files.js';

/** One alert as Prometheus's /api/v1/alerts answers it (pending or firing). */
export interface PromAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: string;
}

/** One series of an instant query's answer. */
export interface PromSample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface PrometheusServer {
  url: string;
  /** An instant query's vector (an error of the query fails the test with Prometheus's words). */
  query(q: string): Promise<PromSample[]>;
  alerts(): Promise<PromAlert[]>;
  /** What the server said on stderr (warnings and errors). */
  log(): string;
  close(): Promise<void>;
}

/**
 * A real Prometheus server (Debian's package, test/setup/prometheus-setup.ts) with the shipped rules as they are,
 * scraping `targets` as the job `inventory-sync` every second and looking at the rules every second.
 */
export async function startPrometheus(targets: string[]): Promise<PrometheusServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dir = mkdtempSync(join(tmpdir(), 'isync-prom-'));
  const config = [
    'global:',
    '  scrape_interval: 1s',
    '  evaluation_interval: 1s',
    'rule_files:',
    ...filesOf(RULES_DIR, '.yml').map((f) => `  - ${f}`),
    'scrape_configs:',
    '  - job_name: inventory-sync',
    '    static_configs:',
    `      - targets: [${targets.map((t) => `'${t}'`).join(', ')}]`,
  ].join('\n');
  writeFileSync(join(dir, 'prometheus.yml'), `${config}\n`);
  const child = spawn(
    inject('prometheusPath'),
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const close = async () => {
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await eventually(async () => (await fetch(`${url}/-/ready`).catch(() => undefined))?.ok === true, 30_000, 'Prometheus ready');
  } catch (err) {
    await close();
    throw new Error(`${(err as Error).message}; Prometheus said: ${log || 'nothing'}`);
  }
  return {
    url,
    async query(q) {
      const res = (await (await fetch(`${url}/api/v1/query?query=${encodeURIComponent(q)}`)).json()) as {
        status: string;
        error?: string;
        data: { result: PromSample[] };
      };
      if (res.status !== 'success') throw new Error(`Prometheus refused ${q}: ${res.error}`);
      return res.data.result;
    },
    async alerts() {
      return ((await (await fetch(`${url}/api/v1/alerts`)).json()) as { data: { alerts: PromAlert[] } }).data.alerts;
    },
    log: () => log,
    close,
  };
}
