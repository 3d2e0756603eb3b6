import type { ZodType } from 'zod';

/**
 * One setting a kind of job declares of its own (its poll interval or cron, its go-live floor): the kind's folder
 * says its variable, rule, default and doc line, and readConfig reads it from the list of kinds it is handed.
 */
export interface KindSetting {
  /** The environment variable (shared/interface.md), e.g. X_POLL_SECONDS. */
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

/** Every setting of the kinds, in the list's order; throws when two kinds declare one variable (a mistake in the list). */
export function settingsOf(kinds: readonly SettingsOfKind[]): KindSetting[] {
  const all = kinds.flatMap((k) => k.settings ?? []);
  const seen = new Set<string>();
  for (const s of all) {
    if (seen.has(s.name)) throw new Error(`the setting ${s.name} is declared by two kinds of job`);
    seen.add(s.name);
  }
  return all;
}
