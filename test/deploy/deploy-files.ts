import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

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

/** Every PromQL expression of the Grafana dashboard's panels (rows' panels too), with its panel's title. */
export function panelQueries(): Array<{ panel: string; expr: string }> {
  type Panel = { title: string; targets?: Array<{ expr?: string }>; panels?: Panel[] };
  const dash = JSON.parse(readFileSync(GRAFANA_DASHBOARD, 'utf8')) as { panels: Panel[] };
  const all = (ps: Panel[]): Panel[] => ps.flatMap((p) => [p, ...all(p.panels ?? [])]);
  return all(dash.panels).flatMap((p) => (p.targets ?? []).filter((t) => t.expr).map((t) => ({ panel: p.title, expr: t.expr! })));
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
