import { z, type ZodType } from 'zod';
import { envSchema } from './schema.js';

/**
 * One setting a kind of job declares of its own (its poll interval or cron, its go-live floor), under its variable's
 * name in the kind's `settings`: its rule, default and doc line. readConfig reads it from the list of kinds it is
 * handed; docs/reference.md lists it with its doc line (`npm run docs:reference`).
 */
export interface KindSetting<T = unknown> {
  /** Its rule; each message names the variable, as the program's own settings do (config/setting-rules.ts). */
  rule: ZodType<T>;
  /** Its value when unset. None: the setting is optional and absent from the configuration when unset. */
  default?: string | number;
  /** One line for operators: what it sets (docs/reference.md). */
  doc: string;
}

/** A kind's settings: by variable (X_POLL_SECONDS), what each is. */
export type SettingsShape = Readonly<Record<string, KindSetting<any>>>;

/** X_POLL_SECONDS as a type: xPollSeconds (settingKey). */
export type SettingKey<V extends string> = V extends `${infer H}_${infer T}` ? `${Lowercase<H>}${Capitalize<SettingKey<T>>}` : Lowercase<V>;

/**
 * The checked values of a kind's settings, by the camelCase of their variables (settingKey), typed by their rules; a
 * setting without a default may be unset.
 */
export type SettingValues<S extends SettingsShape> = {
  readonly [V in keyof S & string as SettingKey<V>]: S[V] extends { default: string | number }
    ? z.output<S[V]['rule']>
    : z.output<S[V]['rule']> | undefined;
};

/**
 * The values of the kinds' settings, by the camelCase of their variables (X_POLL_SECONDS: xPollSeconds),
 * defaults applied; an optional setting left unset is absent.
 */
export type KindSettings = Readonly<Record<string, unknown>>;

/** What configuration reads of a kind (config's slice of it): its settings, and which one is its go-live floor. */
export interface SettingsOfKind {
  settings?: SettingsShape;
  job?: { goLive?: { setting: string } };
}

/** A setting's key in config.schedule: X_POLL_SECONDS is xPollSeconds. */
export function settingKey(variable: string): string {
  return variable.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/**
 * Every setting of the kinds, with its variable's name, in the list's order; throws when two kinds declare one
 * variable, or a kind one of the program's own (a mistake in the list).
 */
export function settingsOf(kinds: readonly SettingsOfKind[]): Array<KindSetting & { name: string }> {
  const all = kinds.flatMap((k) => Object.entries(k.settings ?? {}).map(([name, s]) => ({ ...s, name })));
  const seen = new Set<string>(Object.keys(envSchema.shape));
  for (const s of all) {
    if (seen.has(s.name)) throw new Error(`the setting ${s.name} is declared twice (by two kinds of job, or a kind and the program)`);
    seen.add(s.name);
  }
  return all;
}

const schemas = new WeakMap<readonly SettingsOfKind[], z.ZodObject<Record<string, z.ZodType>>>();

/**
 * The schema of the settings the kinds declare, each with its default; built once per list of kinds (ACCOUNTS_FILE's
 * thousands of accounts are each read with it, and zod compiles a schema at its first parse).
 */
export function kindsSchema(kinds: readonly SettingsOfKind[]) {
  let schema = schemas.get(kinds);
  if (!schema) {
    const own = settingsOf(kinds).map((s) => [s.name, s.default === undefined ? s.rule.optional() : s.rule.default(s.default)]);
    schema = z.object(Object.fromEntries(own) as Record<string, z.ZodType>);
    schemas.set(kinds, schema);
  }
  return schema;
}

/** A kind's own values of config.schedule (what its pull is handed), typed by its settings. */
export function settingValues<S extends SettingsShape>(kind: { settings?: S }, schedule: KindSettings): SettingValues<S> {
  const keys = new Set(Object.keys(kind.settings ?? {}).map(settingKey));
  return Object.fromEntries(Object.entries(schedule).filter(([k]) => keys.has(k))) as SettingValues<S>;
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
    const setting = k.job?.goLive?.setting;
    const v = setting ? values[setting] : undefined;
    if (setting && typeof v === 'string') goLive[setting] = v;
  }
  return { schedule: schedule as KindSettings, goLive };
}
