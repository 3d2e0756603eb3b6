import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { settingsOf } from '../../config/kind-setting.js';
import { readConfig, type Config, type ConfigNeeds } from '../../config/read-config.js';
import { envSchema, secretSettings, type SecretSetting } from '../../config/schema.js';
import { programKinds } from '../../jobs/kinds.js';
import { storeOf } from '../../src/app/feed-sources.js';
import { loadTransforms, transformSettingsOf } from '../../src/feed/load-transforms.js';

/** The repository's deploy/ folder, and its parts. */
export const DEPLOY = join(import.meta.dirname, '..', '..', 'deploy');
export const RULES_DIR = join(DEPLOY, 'prometheus', 'rules');
export const RULE_TESTS_DIR = join(DEPLOY, 'prometheus', 'tests');
export const GRAFANA_DASHBOARD = join(DEPLOY, 'grafana', 'inventory-sync.json');
export const KUBERNETES_DIR = join(DEPLOY, 'kubernetes');

/** The files of a folder with this ending, sorted, as full paths. */
export function filesOf(dir: string, ending: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(ending))
    .sort()
    .map((f) => join(dir, f));
}

export interface AlertRule {
  file: string;
  group: string;
  alert: string;
  expr: string;
  /** The queries its annotations' templates run (`query "..."`). */
  queries: string[];
}

type RuleFile = { groups: Array<{ name: string; rules: Array<{ alert?: string; expr: string; annotations?: Record<string, string> }> }> };

/** Every alerting rule of deploy/prometheus/rules, with its group and file. */
export function alertRules(): AlertRule[] {
  return filesOf(RULES_DIR, '.yml').flatMap((file) => {
    const doc = parse(readFileSync(file, 'utf8')) as RuleFile;
    return doc.groups.flatMap((g) =>
      g.rules
        .filter((r) => r.alert)
        .map((r) => {
          const text = Object.values(r.annotations ?? {}).join('\n');
          const queries = [...text.matchAll(/query\s+"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\"/g, '"'));
          return { file, group: g.name, alert: r.alert!, expr: String(r.expr), queries };
        }),
    );
  });
}

/** A panel of the Grafana dashboard, as much of it as the tests read. */
export interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type: string; uid: string };
  targets?: Array<{ expr?: string; datasource?: { type: string; uid: string } }>;
  panels?: Panel[];
}

/** The dashboard's panels, rows and those in them (a collapsed row holds its own). */
export function dashboardPanels(): Panel[] {
  const dash = JSON.parse(readFileSync(GRAFANA_DASHBOARD, 'utf8')) as { panels: Panel[] };
  const all = (ps: Panel[]): Panel[] => ps.flatMap((p) => [p, ...all(p.panels ?? [])]);
  return all(dash.panels);
}

/** The row of the deployment's figures (issue 56: an operator of many accounts, most of them with no series of their own). */
export const DEPLOYMENT_ROW = 'Deployment (ACCOUNTS_FILE: every account, open or closed)';

/** The panels under a row (an open row's: those after it, up to the next row), by the row's title. */
export function rowPanels(title: string): Panel[] {
  const top = (JSON.parse(readFileSync(GRAFANA_DASHBOARD, 'utf8')) as { panels: Panel[] }).panels;
  const at = top.findIndex((p) => p.type === 'row' && p.title === title);
  if (at < 0) return [];
  const next = top.findIndex((p, i) => i > at && p.type === 'row');
  return [...(top[at]!.panels ?? []), ...top.slice(at + 1, next < 0 ? undefined : next)];
}

/** Every PromQL expression of the Grafana dashboard's panels (rows' panels too), with its panel's title. */
export function panelQueries(panels: Panel[] = dashboardPanels()): Array<{ panel: string; expr: string }> {
  return panels.flatMap((p) => (p.targets ?? []).filter((t) => t.expr).map((t) => ({ panel: p.title, expr: t.expr! })));
}

/** PromQL's words that are not metric names: operators, modifiers and aggregation keywords (functions are followed by "("). */
const KEYWORDS = new Set(['and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset']);

/**
 * The metric names an expression reads: what is left once strings, label matchers (`{...}`), ranges (`[5m]`) and label
 * lists (`by (...)`, `on (...)`) are taken out, less function names (before a "("), keywords and numbers.
 */
export function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const m of bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const after = bare.slice(m.index! + m[0].length).trimStart();
    if (after.startsWith('(') || KEYWORDS.has(m[0]) || /^\d/.test(m[0])) continue;
    // A duration or number's unit (5m, 1e3) is no name either.
    const before = bare[m.index! - 1];
    if (before && /[0-9.]/.test(before)) continue;
    names.add(m[0]);
  }
  return [...names];
}

/** Names of the metrics a /metrics text declares (`# TYPE`), with a histogram's and a summary's series. */
export function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, type] = m as unknown as [string, string, string];
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
  }
  return names;
}

/** Every metric name an alerting rule (its expression, its annotations' queries) or a Grafana panel reads, and where. */
export function namesRead(): Array<{ name: string; where: string }> {
  return [
    ...alertRules().flatMap((r) =>
      [r.expr, ...r.queries].flatMap((e) => metricNamesIn(e).map((name) => ({ name, where: `rule ${r.alert}` }))),
    ),
    ...panelQueries().flatMap((p) => metricNamesIn(p.expr).map((name) => ({ name, where: `panel "${p.panel}"` }))),
  ];
}

/** The metrics a `worker` serves only with ACCOUNTS_FILE: the deployment's figures, the accounts' (docs/monitoring.md). */
export const withAccountsFileOnly = (name: string): boolean => /^isync_(deployment_|account_trouble$|accounts$)/.test(name);

const AGGREGATIONS = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'group',
  'stddev',
  'stdvar',
  'count',
  'count_values',
  'bottomk',
  'topk',
  'quantile',
]);

/**
 * For each place an expression reads a metric whose name starts with `prefix`, the aggregation nearest around it
 * (`max` in `max without(instance) (last_over_time(m[1d]))`), or undefined when none is.
 */
export function aggregationsAround(expr: string, prefix: string): Array<string | undefined> {
  return [...expr.matchAll(new RegExp(`\\b${prefix}[a-zA-Z0-9_:]*`, 'g'))].map((m) => {
    const before = expr.slice(0, m.index);
    let depth = 0;
    for (let i = before.length - 1; i >= 0; i--) {
      if (before[i] === ')') depth++;
      else if (before[i] === '(' && depth > 0) depth--;
      else if (before[i] === '(') {
        // An opening bracket around the metric: what is before it, a function, an aggregation (with its clause) or none.
        const head = before.slice(0, i).trimEnd();
        const word = (/\b([a-z_]+)\s*(?:by|without)\s*\([^()]*\)$/.exec(head) ?? /([a-z_]+)$/.exec(head))?.[1];
        if (word && AGGREGATIONS.has(word)) return word;
      }
    }
    return undefined;
  });
}

/** The repository's root, and the deploy files at it: Docker Compose's and the settings file it hands the containers. */
export const ROOT = join(DEPLOY, '..');
export const COMPOSE_FILE = join(ROOT, 'docker-compose.yml');
export const ENV_EXAMPLE = join(ROOT, '.env.example');

/** Every setting the program knows: config/schema.ts's, each secret's X_FILE form, and those the kinds declare. */
export function knownSettings(): Set<string> {
  return new Set([
    ...Object.keys(envSchema.shape),
    ...secretSettings.map((s) => `${s}_FILE`),
    ...settingsOf(programKinds).map((s) => s.name),
  ]);
}

/** The secret setting an X_FILE setting gives as a file, or undefined. */
export function secretOfFile(name: string): SecretSetting | undefined {
  return secretSettings.find((s) => `${s}_FILE` === name);
}

/**
 * The settings each documented path needs set (they have no default that serves it), by the doc that walks it: a
 * deployment names each, or its secret's X_FILE. Each is named by its doc (checked), so that the list follows the docs.
 */
export const DOCUMENTED_NEEDS: Record<string, readonly string[]> = {
  'docs/going-live.md': [
    'INVENTORY_BASE_URL',
    'INVENTORY_ACCOUNT',
    'INVENTORY_API_KEY',
    'INVENTORY_API_SECRET',
    'UPSTREAM_URL',
    'UPSTREAM_TOKEN',
    'QUEUE_PREFIX',
    'REDIS_URL',
    'MAPPING_FILE',
    'SYNC_ORDERS_SINCE',
    'SYNC_COUNTS_SINCE',
    'ALERT_WEBHOOK_URL',
    'DASHBOARD_USER',
    'DASHBOARD_PASSWORD',
  ],
  'docs/shopify.md': [
    'SHOPIFY_STORE_URL',
    'SHOPIFY_ACCESS_TOKEN',
    'INGEST_HMAC_SECRET',
    'INGEST_PORT',
    'INGEST_PUBLIC_URL',
    'MAPPING_FILE',
  ],
  'docs/push.md': ['INGEST_PORT', 'INGEST_SECRET', 'INGEST_HOST', 'TRANSFORMS'],
  'docs/deployment.md': ['WORKER_HTTP_HOST', 'WORKER_HTTP_PORT', 'DASHBOARD_PUBLIC_URL', 'REDIS_URL'],
};

/** The documented needs a set of names lacks, as `doc: SETTING`; a secret is there as itself or as its X_FILE. */
export function missingNeeds(names: ReadonlySet<string>): string[] {
  return Object.entries(DOCUMENTED_NEEDS).flatMap(([doc, needs]) =>
    needs.filter((n) => !names.has(n) && !names.has(`${n}_FILE`)).map((n) => `${doc}: ${n}`),
  );
}

/** A value of each secret in the form the program's rules want of it (a test's stand-in for the operator's). */
export function secretValue(name: string): string {
  if (name === 'INGEST_SECRET') return `whsec_${Buffer.from(`a-push-secret-for-${name}`).toString('base64')}`;
  if (name === 'ALERT_WEBHOOK_URL') return 'https://hooks.example.com/services/T0/B0/alerts';
  return `${name.toLowerCase()}-a-long-test-value`;
}

/**
 * The configuration a command reads at start, as it reads it: readConfig with the command's needs, then the
 * transforms loaded against the kinds (a store's own added), as `worker` and `receive` do before they run.
 */
export async function configAtStart(env: Record<string, string>, command: string): Promise<Config> {
  const needs: ConfigNeeds = command === 'worker' ? { service: true } : {};
  const config = readConfig(env, needs, programKinds);
  await loadTransforms(transformSettingsOf(config.transforms ?? [], programKinds, storeOf(config)), programKinds);
  return config;
}
