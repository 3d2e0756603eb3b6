import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { KUBERNETES_DIR } from './deploy-files.js';

/** The Kubernetes objects of deploy/kubernetes, as the API would read them (only the fields the checks look at). */
export interface Container {
  name: string;
  args: string[];
  envFrom?: Array<{ configMapRef?: { name: string } }>;
  env?: Array<{ name: string; value?: string; valueFrom?: unknown }>;
  ports?: Array<{ name: string; containerPort: number }>;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  volumeMounts?: Array<{ name: string; mountPath: string; subPath?: string; readOnly?: boolean }>;
}
interface Probe {
  httpGet?: { path: string; port: string };
  tcpSocket?: { port: string };
  exec?: { command: string[] };
}
export interface SecretSource {
  name: string;
  optional?: boolean;
  items: Array<{ key: string; path: string }>;
}
export interface Volume {
  name: string;
  secret?: { secretName: string; optional?: boolean; items: Array<{ key: string; path: string }> };
  projected?: { sources: Array<{ secret?: SecretSource; configMap?: { name: string } }> };
  configMap?: { name: string; optional?: boolean };
}
export interface PodSpec {
  terminationGracePeriodSeconds?: number;
  containers: Container[];
  volumes?: Volume[];
}
export interface K8sObject {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: {
    replicas?: number;
    selector?: { matchLabels?: Record<string, string> } & Record<string, string>;
    template?: { metadata: { labels: Record<string, string>; annotations?: Record<string, string> }; spec: PodSpec };
    ports?: Array<{ name: string; port: number; targetPort: string }>;
    minAvailable?: number;
    volumeClaimTemplates?: Array<{ metadata: { name: string } }>;
  };
}
export interface Kustomization {
  resources: string[];
  configMapGenerator?: Array<{ name: string; files?: string[] }>;
  secretGenerator?: unknown[];
}

const text = (file: string) => readFileSync(join(KUBERNETES_DIR, file), 'utf8');
export const kustomization = parse(text('kustomization.yaml')) as Kustomization;

/** A commented setting of a ConfigMap (`  # NAME: value`), put in: what the manifests are with every documented path on. */
const putIn = (yaml: string) => yaml.replace(/^(\s+)# ([A-Z][A-Z0-9_]*: )/gm, '$1$2');

/**
 * The objects `kubectl apply -k` applies (kustomization.yaml's resources), as shipped or with every commented
 * setting put in. Generated ConfigMaps keep the names the manifests give them (kustomize only adds a hash to both).
 */
export function manifests(o: { allOn: boolean }): K8sObject[] {
  return kustomization.resources.flatMap((f) => parseAllDocuments(o.allOn ? putIn(text(f)) : text(f)).map((d) => d.toJS() as K8sObject));
}

export function one(objects: K8sObject[], kind: string, name: string): K8sObject {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`no ${kind} ${name} in deploy/kubernetes`);
  return o;
}

/** The Deployments (and StatefulSets) with their pod and its one container. */
export function workloads(objects: K8sObject[]) {
  return objects
    .filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet')
    .map((o) => ({ object: o, pod: o.spec!.template!.spec, container: o.spec!.template!.spec.containers[0]! }));
}

/**
 * The files of each generated ConfigMap: kustomization.yaml's own, and with every documented path on, the module
 * files its commented lines list (the transforms you add; a stand-in module each, as no such file is shipped).
 */
export function generatedFiles(o: { allOn: boolean }): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const g of kustomization.configMapGenerator ?? [])
    out.set(g.name, Object.fromEntries((g.files ?? []).map((f) => [basename(f), text(f)])));
  if (o.allOn)
    for (const m of text('kustomization.yaml').matchAll(/^\s*#\s+- (transforms\/\S+\.m?js)$/gm))
      out.get('inventory-sync-transforms')![basename(m[1]!)] = 'export default (payload) => payload;\n';
  return out;
}

/** What a volume takes from Secrets (a secret volume, or the secrets of a projected one). */
const secretSources = (v: Volume): SecretSource[] => [
  ...(v.secret ? [{ name: v.secret.secretName, optional: v.secret.optional, items: v.secret.items }] : []),
  ...(v.projected?.sources ?? []).flatMap((s) => (s.secret ? [s.secret] : [])),
];

/** The keys a pod's secret volumes take from a Secret: those it must hold, and those taken only when there. */
export function secretKeys(pod: PodSpec): { required: string[]; optional: string[] } {
  const sources = (pod.volumes ?? []).flatMap(secretSources);
  const keys = (optional: boolean) => sources.filter((s) => Boolean(s.optional) === optional).flatMap((s) => s.items.map((i) => i.key));
  return { required: keys(false), optional: keys(true) };
}

/**
 * A container's environment as its pod would see it, with its volumes' files written under `dir`: the ConfigMap's
 * values and its own, each path under a mount made the path of that file here. The Secret is `secret` (made apart):
 * a key the pod requires and the Secret lacks throws (the pod would not start).
 */
export function podEnvironment(
  objects: K8sObject[],
  pod: PodSpec,
  c: Container,
  o: { secret: Record<string, string>; generated: Map<string, Record<string, string>>; dir: string },
): Record<string, string> {
  const mounts: Array<[string, string]> = [];
  for (const m of c.volumeMounts ?? []) {
    const here = join(o.dir, c.name, m.name);
    mkdirSync(here, { recursive: true });
    const volume = pod.volumes!.find((v) => v.name === m.name)!;
    for (const s of secretSources(volume))
      for (const item of s.items) {
        const value = o.secret[item.key];
        if (value === undefined && !s.optional)
          throw new Error(`${c.name}: the Secret ${s.name} lacks ${item.key}, which the pod requires`);
        if (value !== undefined) writeFileSync(join(here, item.path), value);
      }
    const generated = volume.configMap ? o.generated.get(volume.configMap.name) : undefined;
    if (volume.configMap && !generated) throw new Error(`${c.name}: no ConfigMap ${volume.configMap.name} to mount`);
    for (const [file, content] of Object.entries(generated ?? {})) writeFileSync(join(here, file), content);
    mounts.push([`${m.mountPath}/`, `${here}/`]);
  }
  const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
  for (const from of c.envFrom ?? []) Object.assign(env, one(objects, 'ConfigMap', from.configMapRef!.name).data);
  for (const { name, value } of c.env ?? []) env[name] = value ?? '';
  for (const [name, value] of Object.entries(env))
    env[name] = mounts.reduce((v, [inPod, here]) => v.split(inPod).join(here), String(value));
  return env;
}
