import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../config/read-config.js';
import { programKinds } from '../../jobs/kinds.js';
import { buildProgram } from '../../src/cli/program.js';
import { filesOf, KUBERNETES_DIR } from './deploy-files.js';

/** The Kubernetes objects of deploy/kubernetes, as the API would read them (only the fields the checks look at). */
interface Container {
  name: string;
  args: string[];
  envFrom?: Array<{ configMapRef?: { name: string } }>;
  env?: Array<{ name: string; value: string }>;
  ports?: Array<{ name: string; containerPort: number }>;
  livenessProbe?: { httpGet?: { path: string; port: string }; tcpSocket?: { port: string } };
  readinessProbe?: { httpGet?: { path: string; port: string }; tcpSocket?: { port: string } };
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
interface PodSpec {
  terminationGracePeriodSeconds?: number;
  containers: Container[];
  volumes?: Array<{ name: string; secret?: { secretName: string; items: Array<{ key: string; path: string }> } }>;
}
interface K8sObject {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: {
    selector?: { matchLabels?: Record<string, string> } & Record<string, string>;
    template?: { metadata: { labels: Record<string, string>; annotations?: Record<string, string> }; spec: PodSpec };
    ports?: Array<{ name: string; port: number; targetPort: string }>;
    minAvailable?: number;
  };
}

const objects: K8sObject[] = filesOf(KUBERNETES_DIR, '.yaml')
  .filter((f) => !f.endsWith('kustomization.yaml'))
  .flatMap((f) => parseAllDocuments(readFileSync(f, 'utf8')).map((d) => d.toJS() as K8sObject));
const one = (kind: string, name: string) => {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`no ${kind} ${name} in deploy/kubernetes`);
  return o;
};
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);
const dir = mkdtempSync(join(tmpdir(), 'isync-k8s-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A container's environment as the pod would see it: the ConfigMap's values, its own, and each X_FILE pointing at the
 * file its secret volume puts there (written here from the Secret's placeholders, at the same relative path).
 */
function environment(pod: PodSpec, c: Container): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
  for (const from of c.envFrom ?? []) Object.assign(env, one('ConfigMap', from.configMapRef!.name).data);
  const secret = one('Secret', 'inventory-sync').stringData!;
  for (const { name, value } of c.env ?? []) {
    if (!name.endsWith('_FILE')) {
      env[name] = value;
      continue;
    }
    const mount = (c.volumeMounts ?? []).find((m) => value.startsWith(`${m.mountPath}/`));
    expect(mount, `${c.name}: ${name} is a file under a mounted volume`).toBeDefined();
    const volume = pod.volumes?.find((v) => v.name === mount!.name);
    const item = volume?.secret?.items.find((i) => i.path === value.slice(mount!.mountPath.length + 1));
    expect(item, `${c.name}: ${name} is a key of the Secret mounted there`).toBeDefined();
    const file = join(dir, `${c.name}-${item!.key}`);
    writeFileSync(file, secret[item!.key]!);
    env[name] = file;
  }
  return env;
}

describe("deploy/kubernetes's manifests", () => {
  const worker = one('Deployment', 'inventory-sync-worker');
  const pod = worker.spec!.template!.spec;
  const [container] = pod.containers;

  it('run `worker` with /healthz as its liveness probe and /readyz as its readiness probe, on the metrics port', () => {
    expect(container!.args).toEqual(['worker']);
    const metrics = container!.ports!.find((p) => p.name === 'metrics')!;
    const env = environment(pod, container!);
    expect(metrics.containerPort).toBe(Number(env.WORKER_HTTP_PORT));
    expect(env.WORKER_HTTP_HOST).toBe('0.0.0.0');
    expect(container!.livenessProbe!.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(container!.readinessProbe!.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    expect(worker.spec!.template!.metadata.annotations).toMatchObject({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': String(metrics.containerPort),
    });
  });

  it('give every pod more time to stop than the shutdown grace, as the program reads it', () => {
    for (const d of objects.filter((o) => o.kind === 'Deployment')) {
      const p = d.spec!.template!.spec;
      const config = readConfig(environment(p, p.containers[0]!), {}, programKinds);
      expect(p.terminationGracePeriodSeconds ?? 30, d.metadata.name).toBeGreaterThan(config.shutdownGraceSeconds);
    }
  });

  it('give every secret as a file (X_FILE) and every setting the program takes, read with its own rules', () => {
    const secrets = new Set(Object.keys(one('Secret', 'inventory-sync').stringData!));
    for (const d of objects.filter((o) => o.kind === 'Deployment')) {
      const p = d.spec!.template!.spec;
      for (const c of p.containers) {
        const names = [...Object.keys(one('ConfigMap', 'inventory-sync').data!), ...(c.env ?? []).map((e) => e.name)];
        // No secret in the environment itself: each is its _FILE.
        expect(
          names.filter((n) => secrets.has(n)),
          `${d.metadata.name}`,
        ).toEqual([]);
        const env = environment(p, c);
        const needs = { service: c.args[0] !== 'receive', upstream: c.args[0] === 'worker' };
        const config = readConfig(env, needs, programKinds);
        if (c.args[0] === 'worker') expect(config.service?.apiKey).toBe(one('Secret', 'inventory-sync').stringData!.INVENTORY_API_KEY);
        if (c.args[0] === 'dashboard')
          expect(config.dashboard.password).toBe(one('Secret', 'inventory-sync').stringData!.DASHBOARD_PASSWORD);
        if (c.args[0] === 'receive') expect(config.ingest.secret).toBeDefined();
      }
    }
  });

  it('run commands the program has, with options it takes', () => {
    const commands = buildProgram({} as never, () => undefined, programKinds).commands;
    for (const d of objects.filter((o) => o.kind === 'Deployment')) {
      const [command, ...args] = d.spec!.template!.spec.containers[0]!.args;
      const cmd = commands.find((c) => c.name() === command);
      expect(cmd, `${d.metadata.name}: ${command}`).toBeDefined();
      for (const flag of args.filter((a) => a.startsWith('--')))
        expect(
          cmd!.options.map((o) => o.long),
          `${command} ${flag}`,
        ).toContain(flag);
    }
  });

  it('have Services for the receiver and the dashboard that reach their pods, and a disruption budget that keeps a worker', () => {
    for (const [service, deployment] of [
      ['inventory-sync-receiver', 'inventory-sync-receiver'],
      ['inventory-sync-dashboard', 'inventory-sync-dashboard'],
    ] as const) {
      const s = one('Service', service);
      const d = one('Deployment', deployment);
      const labels = d.spec!.template!.metadata.labels;
      const { matchLabels: _m, ...selector } = s.spec!.selector!;
      expect(matches(selector, labels), service).toBe(true);
      expect(
        matches(selector, one('Deployment', 'inventory-sync-worker').spec!.template!.metadata.labels),
        `${service} reaches no worker`,
      ).toBe(false);
      const ports = d.spec!.template!.spec.containers[0]!.ports!.map((p) => p.name);
      for (const p of s.spec!.ports!) expect(ports, service).toContain(p.targetPort);
    }
    const pdb = one('PodDisruptionBudget', 'inventory-sync-worker');
    expect(matches(pdb.spec!.selector!.matchLabels!, worker.spec!.template!.metadata.labels)).toBe(true);
    expect(pdb.spec!.minAvailable).toBeGreaterThanOrEqual(1);
    expect(worker.spec!).toMatchObject({ replicas: expect.any(Number) });
    expect((worker.spec as { replicas: number }).replicas).toBeGreaterThan(pdb.spec!.minAvailable!);
  });
});
