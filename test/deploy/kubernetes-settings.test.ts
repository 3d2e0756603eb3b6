import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { secretsOf } from '../../config/read-config.js';
import { secretSettings } from '../../config/schema.js';
import { configAtStart, knownSettings, missingNeeds, ROOT, secretOfFile, secretValue } from './deploy-files.js';
import { generatedFiles, manifests, one, podEnvironment, secretKeys, workloads, type K8sObject } from './kubernetes-objects.js';

const dir = mkdtempSync(join(tmpdir(), 'isync-k8s-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const shipped = manifests({ allOn: false });
const allOn = manifests({ allOn: true });

/**
 * The keys docs/deployment.md's `kubectl create secret generic inventory-sync` makes, and those its comments say to
 * add for a path of config.yaml that names a secret.
 */
function documentedKeys(): { made: string[]; added: string[] } {
  const doc = readFileSync(join(ROOT, 'docs', 'deployment.md'), 'utf8');
  const lines = (/```sh\n(kubectl create secret generic inventory-sync [\s\S]*?)```/.exec(doc)?.[1] ?? '').split('\n');
  const keysIn = (text: string[]) => [
    ...new Set(text.flatMap((l) => [...l.matchAll(/--from-file=([A-Z][A-Z0-9_]*)=/g)].map((m) => m[1]!))),
  ];
  return { made: keysIn(lines.filter((l) => !l.startsWith('#'))), added: keysIn(lines.filter((l) => l.startsWith('#'))) };
}

/** The program's pods of a view of the manifests, each with its command, its environment and its configuration at start. */
async function startedPods(objects: K8sObject[], view: 'shipped' | 'all-on', keys: string[]) {
  const secret = Object.fromEntries(keys.map((k) => [k, secretValue(k)]));
  const generated = generatedFiles({ allOn: view === 'all-on' });
  const pods = workloads(objects).filter((w) => w.object.kind === 'Deployment');
  return Promise.all(
    pods.map(async (w) => {
      const env = podEnvironment(objects, w.pod, w.container, { secret, generated, dir: join(dir, view, w.object.metadata.name) });
      const command = w.container.args[0]!;
      return { name: w.object.metadata.name, command, env, config: await configAtStart(env, command) };
    }),
  );
}

/** The names of the settings a view gives its pods: the ConfigMap's, and each container's own. */
const names = (objects: K8sObject[]) =>
  new Set([
    ...Object.keys(one(objects, 'ConfigMap', 'inventory-sync').data!),
    ...workloads(objects).flatMap((w) => (w.container.env ?? []).map((e) => e.name)),
  ]);

describe("deploy/kubernetes's settings", () => {
  it('hold no Secret: each secret is a file of the Secret made apart, which every pod mounts without subPath', () => {
    for (const objects of [shipped, allOn]) {
      expect(objects.filter((o) => o.kind === 'Secret' || o.stringData)).toEqual([]);
      const literal = [...names(objects)].filter((n) => (secretSettings as readonly string[]).includes(n));
      expect(literal, 'secrets in the environment itself').toEqual([]);
      for (const w of workloads(objects)) {
        expect((w.container.env ?? []).filter((e) => e.valueFrom)).toEqual([]);
        expect(w.container.volumeMounts?.filter((m) => m.subPath) ?? []).toEqual([]);
        if (w.object.kind === 'Deployment')
          expect(
            w.container.volumeMounts!.filter((m) => !m.readOnly),
            w.object.metadata.name,
          ).toEqual([]);
      }
    }
  });

  it('name only settings the program has', () => {
    const known = knownSettings();
    expect([...names(allOn)].filter((n) => !known.has(n))).toEqual([]);
  });

  it('name every setting that docs/going-live.md, docs/shopify.md, docs/push.md and docs/deployment.md need', () => {
    expect(missingNeeds(names(allOn))).toEqual([]);
  });

  it("are given every key a pod needs by the docs' `kubectl create secret`, and mount every key the docs add", () => {
    const { made, added } = documentedKeys();
    const pods = workloads(shipped).map((w) => secretKeys(w.pod));
    expect(made.length).toBeGreaterThan(0);
    expect(pods.flatMap((p) => p.required).filter((k) => !made.includes(k))).toEqual([]);
    const mounted = new Set(pods.flatMap((p) => [...p.required, ...p.optional]));
    expect([...mounted].sort()).toEqual([...made, ...added].sort());
    for (const k of mounted) expect(secretSettings as readonly string[], `${k}: a key of a secret setting`).toContain(k);
  });

  describe('as shipped, with the Secret that the docs make', () => {
    it("give each pod an environment that passes its command's configuration check, each secret read from its file", async () => {
      const pods = await startedPods(shipped, 'shipped', documentedKeys().made);
      expect(pods.map((p) => p.command).sort()).toEqual(['dashboard', 'receive', 'worker']);
      for (const p of pods) {
        const files = Object.keys(p.env).flatMap((n) => secretOfFile(n) ?? []);
        expect(files.length, p.name).toBeGreaterThan(0);
        for (const s of files) expect(secretsOf(p.config), `${p.name}: ${s}`).toContain(secretValue(s));
        expect(p.config.mapping?.file, `${p.name}: the mapping`).toMatch(/mapping\.csv$/);
      }
      const worker = pods.find((p) => p.command === 'worker')!.config;
      expect(worker.service?.apiKey).toBe(secretValue('INVENTORY_API_KEY'));
      expect(worker.upstream?.token).toBe(secretValue('UPSTREAM_TOKEN'));
      expect(worker.shopify).toBeUndefined();
      expect(pods.find((p) => p.command === 'dashboard')!.config.dashboard.password).toBe(secretValue('DASHBOARD_PASSWORD'));
      expect(pods.find((p) => p.command === 'receive')!.config.ingest.secret).toBe(secretValue('INGEST_SECRET'));
    });
  });

  describe("with every commented setting put in (a store, transforms, go-live floors, alerts, a managed Redis's password)", () => {
    it("give each pod an environment that passes its command's configuration check, with the keys the docs add", async () => {
      const { made, added } = documentedKeys();
      const pods = await startedPods(allOn, 'all-on', [...made, ...added]);
      for (const p of pods) {
        for (const s of Object.keys(p.env).flatMap((n) => secretOfFile(n) ?? []))
          expect(secretsOf(p.config), `${p.name}: ${s}`).toContain(secretValue(s));
        expect(p.config.shopify?.token, p.name).toBe(secretValue('SHOPIFY_ACCESS_TOKEN'));
        expect(
          p.config.transforms?.map((t) => t.stream),
          p.name,
        ).toContain('stock-counts');
      }
      const worker = pods.find((p) => p.command === 'worker')!.config;
      expect(worker.alerts.webhookUrl).toBe(secretValue('ALERT_WEBHOOK_URL'));
      expect(Object.keys(worker.goLive).sort()).toEqual(['SYNC_COUNTS_SINCE', 'SYNC_ORDERS_SINCE']);
      const receiver = pods.find((p) => p.command === 'receive')!.config;
      expect(receiver.ingest).toMatchObject({ secret: secretValue('INGEST_SECRET'), hmacSecret: secretValue('INGEST_HMAC_SECRET') });
      expect(receiver.ingest.publicUrl).toMatch(/^https:\/\//);
    });
  });
});
