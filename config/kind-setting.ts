import { z, type ZodType } from 'zod';
import { envSchema } from './schema.js';

/**
 * One setting a kind of job declares of its own (its poll interval or cron, its go-live floor): the kind's folder
 * says its variable, rule, default and doc line, and readConfig reads it from the list of kinds it is handed.
 */
export interface KindSetting {
  /** The environment variable (docs/reference.md), e.g. X_POLL_SECONDS. */
  name: string;
  /** Its rule; each message names the variable, as the program's own settings do (config/setting-rules.ts). */
  rule: ZodType;
  /** Its value when unset. None: the setting is optional and absent from the configuration when unset. */
  default?: string | number;
  /** One line for operators: what it sets. */
  doc: string;
}

/**
 * The values of the kinds' settings, by the camelCase of their variables (X_POLL_SECONDS: xPollSeconds),
 * defaults applied; an optional setting left unset is absent.
 */
export type KindSettings = Readonly<Record<string, unknown>>;

/** What configuration reads of a kind: its settings, and which one is its go-live floor. */
export interface SettingsOfKind {
  settings?: readonly KindSetting[];
  goLive?: { setting: string };
}

/** A setting's key in config.schedule: X_POLL_SECONDS is xPollSeconds. */
export function settingKey(variable: string): string {
  return variable.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/**
 * Every setting of the kinds, in the list's order; throws when two kinds declare one variable, or a kind one of the
 * program's own (a mistake in the list).
 */
export function settingsOf(kinds: readonly SettingsOfKind[]): KindSetting[] {
  const all = kinds.flatMap((k) => k.settings ?? []);
  const seen = new Set<string>(Object.keys(envSchema.shape));
  for (const s of all) {
    if (seen.has(s.name)) throw new Error(`the setting ${s.name} is declared twice (by two kinds of job, or a kind and the program)`);
    seen.add(s.name);
  }
  return all;
}

/** The schema of the settings the kinds declare, each with its default. */
export function kindsSchema(kinds: readonly SettingsOfKind[]) {
  const own = settingsOf(kinds).map((s) => [s.name, s.default === undefined ? s.rule.optional() : s.rule.default(s.default)]);
  return z.object(Object.fromEntries(own) as Record<string, z.ZodType>);
}

/**
 * The kinds' settings as checked: `schedule` by key (settingKey), set ones only; `goLive` the go-live floors that are
 * set, by variable (each kind's rule names the one that applies to it).
 */
export function kindSettingsOf(kinds: readonly SettingsOfKind[], values: Record<string, unknown>) {
  const schedule: Record<string, unknown> = {};
  for (const s of settingsOf(kinds)) if (values[s.name] !== undefined) schedule[settingKey(s.name)] = values[s.name];
  const goLive: Partial<Record<string, string>> = {};
  for (const k of kinds) {
    const v = k.goLive ? values[k.goLive.setting] : undefined;
    if (k.goLive && typeof v === 'string') goLive[k.goLive.setting] = v;
  }
  return { schedule: schedule as KindSettings, goLive };
}
