import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { programKinds } from '../../jobs/kinds.js';
import { buildProgram } from '../../src/cli/program.js';
import { configAtStart, KUBERNETES_DIR, secretValue } from './deploy-files.js';
import { generatedFiles, kustomization, manifests, one, podEnvironment, secretKeys, workloads } from './kubernetes-objects.js';

const objects = manifests({ allOn: false });
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);
const dir = mkdtempSync(join(tmpdir(), 'isync-k8s-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The program's pods (the Deployments), each with the environment it would see, every key it may mount in the Secret. */
function programPods() {
  return workloads(objects)
    .filter((w) => w.object.kind === 'Deployment')
    .map((w) => {
      const keys = secretKeys(w.pod);
      const secret = Object.fromEntries([...keys.required, ...keys.optional].map((k) => [k, secretValue(k)]));
      const at = join(dir, w.object.metadata.name);
      return { ...w, env: podEnvironment(objects, w.pod, w.container, { secret, generated: generatedFiles({ allOn: false }), dir: at }) };
    });
}

describe("deploy/kubernetes's manifests", () => {
  const worker = one(objects, 'Deployment', 'inventory-sync-worker');
  const pod = worker.spec!.template!.spec;
  const [container] = pod.containers;

  it('are all applied by kustomization.yaml, which writes no Secret', () => {
    const yamls = readdirSync(KUBERNETES_DIR).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
    expect([...kustomization.resources].sort()).toEqual(yamls.sort());
    expect(kustomization.secretGenerator).toBeUndefined();
  });

  it('run `worker` with /healthz as its liveness probe and /readyz as its readiness probe, on the metrics port', () => {
    expect(container!.args).toEqual(['worker']);
    const metrics = container!.ports!.find((p) => p.name === 'metrics')!;
    const { env } = programPods().find((p) => p.object === worker)!;
    expect(metrics.containerPort).toBe(Number(env.WORKER_HTTP_PORT));
    expect(env.WORKER_HTTP_HOST).toBe('0.0.0.0');
    expect(container!.livenessProbe!.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(container!.readinessProbe!.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    expect(worker.spec!.template!.metadata.annotations).toMatchObject({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': String(metrics.containerPort),
    });
  });

  it('run the receiver on INGEST_PORT beyond loopback, ready while its /healthz answers', async () => {
    const receiver = programPods().find((p) => p.object.metadata.name === 'inventory-sync-receiver')!;
    const config = await configAtStart(receiver.env, 'receive');
    const ingest = receiver.container.ports!.find((p) => p.name === 'ingest')!;
    expect(receiver.container.args).toEqual(['receive']);
    expect(config.ingest).toMatchObject({ port: ingest.containerPort, host: '0.0.0.0' });
    expect(receiver.container.readinessProbe!.httpGet).toEqual({ path: '/healthz', port: 'ingest' });
  });

  it('give every pod more time to stop than the shutdown grace, as the program reads it', async () => {
    for (const p of programPods()) {
      const config = await configAtStart(p.env, p.container.args[0]!);
      expect(p.pod.terminationGracePeriodSeconds ?? 30, p.object.metadata.name).toBeGreaterThan(config.shutdownGraceSeconds);
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
      const s = one(objects, 'Service', service);
      const d = one(objects, 'Deployment', deployment);
      const labels = d.spec!.template!.metadata.labels;
      const { matchLabels: _m, ...selector } = s.spec!.selector!;
      expect(matches(selector, labels), service).toBe(true);
      expect(matches(selector, worker.spec!.template!.metadata.labels), `${service} reaches no worker`).toBe(false);
      const ports = d.spec!.template!.spec.containers[0]!.ports!.map((p) => p.name);
      for (const p of s.spec!.ports!) expect(ports, service).toContain(p.targetPort);
    }
    const pdb = one(objects, 'PodDisruptionBudget', 'inventory-sync-worker');
    expect(matches(pdb.spec!.selector!.matchLabels!, worker.spec!.template!.metadata.labels)).toBe(true);
    expect(pdb.spec!.minAvailable).toBeGreaterThanOrEqual(1);
    expect(worker.spec!.replicas).toBeGreaterThan(pdb.spec!.minAvailable!);
  });

  it('run a Redis that keeps its data on a volume claim and never evicts, where REDIS_URL points', () => {
    const redis = one(objects, 'StatefulSet', 'redis');
    const c = redis.spec!.template!.spec.containers[0]!;
    const arg = (flag: string) => c.args[c.args.indexOf(flag) + 1];
    expect([arg('--appendonly'), arg('--maxmemory-policy')]).toEqual(['yes', 'noeviction']);
    const claims = redis.spec!.volumeClaimTemplates!.map((v) => v.metadata.name);
    expect(claims).toContain(c.volumeMounts!.find((m) => m.mountPath === '/data')?.name);
    const url = new URL(programPods()[0]!.env.REDIS_URL!);
    const service = one(objects, 'Service', url.hostname);
    expect(matches(service.spec!.selector!, redis.spec!.template!.metadata.labels)).toBe(true);
    const port = service.spec!.ports!.find((p) => p.port === Number(url.port))!;
    expect(c.ports!.find((p) => p.name === port.targetPort)?.containerPort).toBe(6379);
    expect(c.readinessProbe!.exec!.command).toEqual(['redis-cli', 'ping']);
  });
});
