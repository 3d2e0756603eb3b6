import { readFileSync, statSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError, readConfig, type Config, type ConfigNeeds } from './read-config.js';
import { settingsOf, type SettingsOfKind } from './kind-setting.js';
import { envSchema } from './schema.js';
import { defaults } from './defaults.js';

/** The name of the one account a deployment without ACCOUNTS_FILE has (the environment's). */
export const defaultAccount = 'default';

const nameRule = /^[a-z0-9-]{1,32}$/;

/**
 * Settings that belong to the deployment, not to one account: where Redis is and the keys' prefix, the dashboard,
 * the worker's and the receiver's HTTP ports, logs and traces, how a process starts and stops.
 */
const deploymentOnly: readonly RegExp[] = [
  /^ACCOUNTS_(FILE|RELOAD_SECONDS)$/,
  /^QUEUE_PREFIX$/,
  /^REDIS_/,
  /^DASHBOARD_/,
  /^WORKER_HTTP_/,
  /^INGEST_(PORT|HOST|MAX_BODY_BYTES|RATE_PER_SECOND|MAX_BACKLOG)$/,
  /^OTEL_/,
  /^LOG_LEVEL$/,
  /^SHUTDOWN_GRACE_SECONDS$/,
  /^REDIS_START_WAIT_SECONDS$/,
];

/** One account of the file: its name and the variables it sets itself (the environment fills the rest). */
export interface AccountEntry {
  name: string;
  settings: Readonly<Record<string, string>>;
}

/** An account's configuration: the environment with the account's own settings over it, checked as the environment is. */
export interface AccountConfig {
  name: string;
  config: Config;
}

/** The accounts a deployment has: those of ACCOUNTS_FILE, or the environment's one account named `default`. */
export interface Accounts {
  /** The file they were read from; absent: the environment's one account. */
  file?: string;
  accounts: AccountConfig[];
}

/**
 * The prefix of an account's Redis keys. The environment's one account, and an account named `default`, keep
 * QUEUE_PREFIX as it is (a deployment that moves to a file keeps its data). Every other account has a prefix of its
 * own in a hash tag of its own (`isync` → `{isync-acme}`), so on Redis Cluster each account's keys share a slot, as
 * BullMQ and the scripts need, and the accounts spread over the cluster's nodes.
 */
export function accountPrefix(base: string, name: string): string {
  if (name === defaultAccount) return base;
  return `{${base.replace(/[{}]/g, '')}-${name}}`;
}

/** The variables an account's object may hold: the program's and the kinds' settings, and their `_FILE` forms. */
function accountVariables(kinds: readonly SettingsOfKind[]): Set<string> {
  const names = [...Object.keys(envSchema.shape), ...settingsOf(kinds).map((s) => s.name)];
  const all = new Set<string>();
  for (const n of names) {
    if (deploymentOnly.some((r) => r.test(n))) continue;
    all.add(n);
    if (!n.endsWith('_FILE')) all.add(`${n}_FILE`);
  }
  return all;
}

/** A value of the file as the environment would hold it: text; numbers and booleans as written. */
function asText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/**
 * Reads ACCOUNTS_FILE's text: `{"accounts": {"NAME": {"VARIABLE": "value", ...}, ...}}`, JSON or YAML (by the
 * file's extension, `.yaml`/`.yml`). Throws a ConfigError with one line per problem, each naming the account and the
 * variable; no value is ever quoted (a value may be a secret).
 */
export function parseAccountsFile(path: string, text: string, kinds: readonly SettingsOfKind[]): AccountEntry[] {
  const where = `ACCOUNTS_FILE (${path})`;
  let doc: unknown;
  try {
    doc = /\.ya?ml$/i.test(extname(path)) ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    const line = err instanceof Error ? (err.message.split('\n')[0] ?? '') : '';
    throw new ConfigError([`${where}: is not valid ${/\.ya?ml$/i.test(path) ? 'YAML' : 'JSON'} (${line.slice(0, 120)})`]);
  }
  const accounts = (doc as { accounts?: unknown } | null)?.accounts;
  if (!accounts || typeof accounts !== 'object' || Array.isArray(accounts))
    throw new ConfigError([`${where}: must be an object {"accounts": {"NAME": {"VARIABLE": "value", ...}}}`]);
  const allowed = accountVariables(kinds);
  const problems: string[] = [];
  const entries: AccountEntry[] = [];
  const names = Object.keys(accounts);
  if (names.length === 0) problems.push(`${where}: names no account (give at least one under "accounts")`);
  for (const name of names) {
    const at = `${where} account "${name.slice(0, 40)}"`;
    if (!nameRule.test(name)) {
      problems.push(`${at}: an account's name is 1 to 32 of a-z, 0-9 and -`);
      continue;
    }
    const own = (accounts as Record<string, unknown>)[name] ?? {};
    if (typeof own !== 'object' || Array.isArray(own)) {
      problems.push(`${at}: must be an object of settings by variable name`);
      continue;
    }
    const settings: Record<string, string> = {};
    for (const [variable, value] of Object.entries(own as Record<string, unknown>)) {
      if (deploymentOnly.some((r) => r.test(variable))) {
        problems.push(`${at}: ${variable}: is the deployment's, not an account's (set it in the environment)`);
        continue;
      }
      if (!allowed.has(variable)) {
        problems.push(`${at}: ${variable}: is not a setting an account can hold (see docs/accounts.md)`);
        continue;
      }
      const v = asText(value);
      if (v === undefined) problems.push(`${at}: ${variable}: must be text, a number or true/false`);
      else settings[variable] = v;
    }
    entries.push({ name, settings });
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return entries;
}

/** ACCOUNTS_FILE's accounts, read from disk; throws a ConfigError when the file cannot be read or is wrong. */
export function readAccountsFile(path: string, kinds: readonly SettingsOfKind[]): AccountEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError([`ACCOUNTS_FILE (${path}): cannot be read (${code}); give the path of a readable JSON or YAML file`]);
  }
  return parseAccountsFile(path, text, kinds);
}

/** When the file last changed (its size and time), to read it again only when it did. */
export function accountsFileStamp(path: string): string | undefined {
  try {
    const s = statSync(path);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return undefined;
  }
}

/**
 * One account's configuration: the environment with the account's settings over it and the account's own prefix.
 * A problem line names the account.
 */
export function accountConfig(
  env: Record<string, string | undefined>,
  entry: AccountEntry,
  needs: ConfigNeeds,
  kinds: readonly SettingsOfKind[],
  fromDotenv: ReadonlySet<string> = new Set(),
): Config {
  const merged: Record<string, string | undefined> = { ...env, ...entry.settings };
  // A setting the account gives replaces the environment's, and so does its other form (X or X_FILE).
  for (const variable of Object.keys(entry.settings)) {
    const other = variable.endsWith('_FILE') ? variable.slice(0, -'_FILE'.length) : `${variable}_FILE`;
    if (!(other in entry.settings)) delete merged[other];
  }
  const base = env.QUEUE_PREFIX?.trim() || undefined;
  merged.QUEUE_PREFIX = accountPrefix(base ?? defaults.queuePrefix, entry.name);
  delete merged.ACCOUNTS_FILE;
  const own = new Set([...fromDotenv].filter((v) => !(v in entry.settings)));
  try {
    return { ...readConfig(merged, needs, kinds, own), accountName: entry.name };
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(err.problems.map((p) => `account "${entry.name}": ${p}`));
    throw err;
  }
}

/**
 * Every account's configuration. Without ACCOUNTS_FILE: the environment, one account named `default`, exactly as
 * readConfig reads it. With it: each account of the file; every problem of every account, one line each.
 */
export function readAccounts(
  env: Record<string, string | undefined>,
  needs: ConfigNeeds,
  kinds: readonly SettingsOfKind[],
  fromDotenv: ReadonlySet<string> = new Set(),
): Accounts {
  const file = env.ACCOUNTS_FILE?.trim();
  if (!file) return { accounts: [{ name: defaultAccount, config: readConfig(env, needs, kinds, fromDotenv) }] };
  const entries = readAccountsFile(file, kinds);
  const problems: string[] = [];
  const accounts: AccountConfig[] = [];
  for (const entry of entries) {
    try {
      accounts.push({ name: entry.name, config: accountConfig(env, entry, needs, kinds, fromDotenv) });
    } catch (err) {
      if (err instanceof ConfigError) problems.push(...err.problems);
      else throw err;
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { file, accounts };
}

/**
 * The one account a command acts on: `--account NAME`, or the only account there is. Throws a ConfigError naming
 * the accounts when there are several and none was chosen, or the chosen one is not in the file.
 */
export function chooseAccount(all: Accounts, name: string | undefined): AccountConfig {
  const names = all.accounts.map((a) => a.name);
  if (name !== undefined) {
    const found = all.accounts.find((a) => a.name === name);
    if (found) return found;
    const where = all.file
      ? `ACCOUNTS_FILE (${all.file}) names ${names.join(', ')}`
      : `without ACCOUNTS_FILE the one account is "${defaultAccount}"`;
    throw new ConfigError([`--account: no account "${name.slice(0, 40)}": ${where}`]);
  }
  if (all.accounts.length === 1) return all.accounts[0]!;
  throw new ConfigError([
    `--account: ACCOUNTS_FILE (${all.file}) names ${names.length} accounts (${names.join(', ')}); give --account NAME`,
  ]);
}
