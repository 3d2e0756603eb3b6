import { readFileSync, statSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError, readConfig, type Config, type ConfigNeeds } from './read-config.js';
import { settingsOf, type SettingsOfKind } from './kind-setting.js';
import { envSchema } from './schema.js';
import { defaults } from './defaults.js';
import { someNames } from '../src/log/name-list.js';

/** The name of the one account a deployment without ACCOUNTS_FILE has (the environment's). */
export const defaultAccount = 'default';

const nameRule = /^[a-z0-9-]{1,32}$/;

/**
 * Settings that belong to the deployment, not to one account: where Redis is and the keys' prefix, the dashboard,
 * the worker's and the receiver's HTTP ports, logs and traces, how a process starts and stops, its catalogs' memory.
 */
const deploymentOnly: readonly RegExp[] = [
  /^ACCOUNTS_(FILE|RELOAD_SECONDS)$/,
  /^QUEUE_PREFIX$/,
  /^REDIS_/,
  /^DASHBOARD_/,
  /^WORKER_HTTP_/,
  /^METRICS_ACCOUNTS$/,
  /^INGEST_(PORT|HOST|MAX_BODY_BYTES|RATE_PER_SECOND|MAX_BACKLOG)$/,
  /^OTEL_/,
  /^LOG_(LEVEL|FILE)$/,
  /^SHUTDOWN_GRACE_SECONDS$/,
  /^WORKER_ACCOUNTS_OPEN$/,
  /^ACCOUNT_(IDLE|TURN)_SECONDS$/,
  /^READY_SHARDS$/,
  /^CATALOG_(CACHE_MB|IDLE_SECONDS)$/,
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

/** Whether a name can be an account's: 1 to 32 of a-z, 0-9 and -. */
export function isAccountName(name: string): boolean {
  return nameRule.test(name);
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

/** The base the accounts' prefixes are made from: QUEUE_PREFIX as the environment gives it, or its default. */
export function basePrefix(env: Record<string, string | undefined>): string {
  return env.QUEUE_PREFIX?.trim() || defaults.queuePrefix;
}

/**
 * The SCAN pattern of every key of every account but `default` (`{isync-*}:*`): each account's keys are under its
 * prefix, and a prefix's braces are no glob characters (QUEUE_PREFIX holds none of `*?[]\`).
 */
export function accountKeysPattern(base: string): string {
  return `${accountPrefix(base, '*')}:*`;
}

/** The account a key of accountKeysPattern is of (`{isync-acme}:orders:id` → `acme`), or undefined when none is. */
export function accountOfKey(base: string, key: string): string | undefined {
  const head = `{${base.replace(/[{}]/g, '')}-`;
  if (!key.startsWith(head)) return undefined;
  const end = key.indexOf('}:', head.length);
  const name = end < 0 ? undefined : key.slice(head.length, end);
  return name !== undefined && nameRule.test(name) && name !== defaultAccount ? name : undefined;
}

/**
 * The variables an account's object may hold: the program's and the kinds' settings (the secrets' `_FILE` forms are
 * settings of the schema; no other setting has one), less the deployment's.
 */
function accountVariables(kinds: readonly SettingsOfKind[]): Set<string> {
  const names = [...Object.keys(envSchema.shape), ...settingsOf(kinds).map((s) => s.name)];
  return new Set(names.filter((n) => !deploymentOnly.some((r) => r.test(n))));
}

/**
 * Where a syntax error is, without quoting the file: the parsers' messages may show the text around it (Node's
 * JSON.parse quotes it, YAML's quotes the line), and that text may be a secret.
 */
function syntaxWhere(err: unknown, text: string): string {
  const yamlAt = (err as { linePos?: Array<{ line: number; col: number }>; code?: unknown }).linePos?.[0];
  if (yamlAt) {
    const code = (err as { code?: unknown }).code;
    return ` at line ${yamlAt.line}, column ${yamlAt.col}${typeof code === 'string' ? ` (${code})` : ''}`;
  }
  const message = err instanceof Error ? err.message : '';
  const lineCol = /line (\d+) column (\d+)/.exec(message);
  if (lineCol) return ` at line ${lineCol[1]}, column ${lineCol[2]}`;
  const position = /at position (\d+)/.exec(message);
  if (position) {
    const before = text.slice(0, Number(position[1])).split('\n');
    return ` at line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
  }
  if (/Unexpected end of JSON input/.test(message)) return ' (it ends too soon)';
  return '';
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
  const yaml = /\.ya?ml$/i.test(extname(path));
  let doc: unknown;
  try {
    doc = yaml ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw new ConfigError([`${where}: is not valid ${yaml ? 'YAML' : 'JSON'}${syntaxWhere(err, text)}`]);
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
  merged.QUEUE_PREFIX = accountPrefix(basePrefix(env), entry.name);
  delete merged.ACCOUNTS_FILE;
  const own = new Set([...fromDotenv].filter((v) => !(v in entry.settings)));
  try {
    const config = readConfig(merged, needs, kinds, own);
    return { ...config, accountName: entry.name, dispatch: { ...config.dispatch, base: basePrefix(env) } };
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
      ? `ACCOUNTS_FILE (${all.file}) names ${someNames(names)}`
      : `without ACCOUNTS_FILE the one account is "${defaultAccount}"`;
    throw new ConfigError([`--account: no account "${name.slice(0, 40)}": ${where}`]);
  }
  if (all.accounts.length === 1) return all.accounts[0]!;
  throw new ConfigError([
    `--account: ACCOUNTS_FILE (${all.file}) names ${names.length} accounts (${someNames(names)}); give --account NAME`,
  ]);
}
