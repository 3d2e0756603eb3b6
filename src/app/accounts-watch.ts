import { accountConfig, accountsFileStamp, readAccountsFile, type AccountEntry } from '../../config/accounts.js';
import type { SettingsOfKind } from '../../config/kind-setting.js';
import { ConfigError, type Config, type ConfigNeeds } from '../../config/read-config.js';
import { messageOf } from '../errors/message-of.js';
import type { Logger } from '../log/logger.js';
import type { CliIo } from './cli-io.js';

// ACCOUNTS_FILE followed while a process runs: the worker's accounts, the receiver's and the dashboard's, one way.

/** One account of ACCOUNTS_FILE, checked: its configuration and its own settings as text. */
export interface WatchedAccount {
  name: string;
  /** Its settings in the file, in a stable order: the same text, the same configuration (the environment is fixed). */
  settings: string;
  config: Config;
}

/** What the file says now against what a subscriber had. */
export interface AccountsChange {
  /** Every account of the file now, in its order. */
  accounts: readonly WatchedAccount[];
  added: readonly WatchedAccount[];
  /** As the subscriber had them. */
  removed: readonly WatchedAccount[];
  /** Accounts whose own settings in the file differ: as the file has them now. */
  changed: readonly WatchedAccount[];
}

/** Where the accounts come from and how each is checked. */
export interface AccountsSource {
  file: string;
  env: Record<string, string | undefined>;
  /** The variables that came from a .env file (readConfig's `fromDotenv`). */
  dotenv?: ReadonlySet<string>;
  kinds: readonly SettingsOfKind[];
  needs: ConfigNeeds;
  /** `--account NAME`: that account of the file alone. */
  only?: string;
}

/** The file's accounts as read once, and the file's stamp from before the read. */
export interface AccountsRead {
  accounts: readonly WatchedAccount[];
  stamp: string | undefined;
}

export interface WatchAccountsOptions {
  /** How often the file's stamp (size and time) is looked at, in ms: ACCOUNTS_RELOAD_SECONDS. */
  everyMs: number;
  logger: Logger;
  /** What goes on while the file is wrong, said after each of its problems. */
  meanwhile: string;
}

/** A subscriber's part: a ConfigError it throws refuses the change (each problem logged); it keeps what it had. */
export type OnAccountsChange = (change: AccountsChange) => void | Promise<void>;

export interface AccountsWatch {
  /**
   * Hands `onChange` each change of the file from the accounts first read on, one at a time. `look` looks at the file
   * now: the file is read and a subscriber not busy is called before it returns; it resolves once this one took it.
   * `meanwhile`: said after each problem of a change this subscriber refuses (default: the watch's).
   */
  subscribe(onChange: OnAccountsChange, meanwhile?: string): { look(): Promise<void> };
  /** Stops looking, and waits for the changes being taken. */
  close(): Promise<void>;
}

/** A command's ACCOUNTS_FILE (and its --account), read with `needs`; undefined without the file. */
export function fileAccountsSource(
  io: Pick<CliIo, 'env' | 'dotenv' | 'account'>,
  kinds: readonly SettingsOfKind[],
  needs: ConfigNeeds,
): AccountsSource | undefined {
  const file = io.env.ACCOUNTS_FILE?.trim();
  if (!file) return undefined;
  return { file, env: io.env, dotenv: io.dotenv, kinds, needs, ...(io.account === undefined ? {} : { only: io.account }) };
}

const settingsText = (e: AccountEntry) => JSON.stringify(Object.entries(e.settings).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Reads and checks the file's accounts (or the `only` one); a ConfigError lists every problem, one line each. */
export function readWatchedAccounts(s: AccountsSource): AccountsRead {
  const stamp = accountsFileStamp(s.file);
  const entries = readAccountsFile(s.file, s.kinds);
  const chosen = s.only === undefined ? entries : entries.filter((e) => e.name === s.only);
  if (chosen.length === 0)
    throw new ConfigError([
      `--account: no account "${s.only!.slice(0, 40)}": ACCOUNTS_FILE (${s.file}) names ${entries.map((e) => e.name).join(', ')}`,
    ]);
  const problems: string[] = [];
  const accounts: WatchedAccount[] = [];
  for (const entry of chosen) {
    try {
      accounts.push({ name: entry.name, settings: settingsText(entry), config: accountConfig(s.env, entry, s.needs, s.kinds, s.dotenv) });
    } catch (err) {
      if (err instanceof ConfigError) problems.push(...err.problems);
      else throw err;
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { accounts, stamp };
}

function changeOf(had: readonly WatchedAccount[], now: readonly WatchedAccount[]): AccountsChange {
  const before = new Map(had.map((a) => [a.name, a]));
  const names = new Set(now.map((a) => a.name));
  return {
    accounts: now,
    added: now.filter((a) => !before.has(a.name)),
    removed: had.filter((a) => !names.has(a.name)),
    changed: now.filter((a) => before.has(a.name) && before.get(a.name)!.settings !== a.settings),
  };
}

interface Subscriber {
  onChange: OnAccountsChange;
  meanwhile?: string;
  /** The accounts it took last. */
  had: readonly WatchedAccount[];
  /** Accounts read since, for it to take. */
  next?: readonly WatchedAccount[];
  /** Its change being taken (and any read meanwhile after it). */
  busy?: Promise<void>;
}

/** Logs why a change of the file was not taken: each problem of a ConfigError on its own line, else the error once. */
function logRefused(logger: Logger, file: string, err: unknown, meanwhile: string): void {
  if (err instanceof ConfigError) for (const problem of err.problems) logger.error({ file }, `${problem}; ${meanwhile}`);
  else
    logger.error(
      { file, err: messageOf(err) },
      `ACCOUNTS_FILE could not be applied (${messageOf(err)}); it is looked at again when it changes`,
    );
}

/**
 * Follows ACCOUNTS_FILE from `first` on: its stamp looked at every `everyMs`, the file read again when it changed and
 * checked as at start. A file with a problem changes nothing (each problem logged, one line); a good one is handed to
 * every subscriber as what was added, removed and changed since it last took one.
 */
export function watchAccounts(source: AccountsSource, first: AccountsRead, o: WatchAccountsOptions): AccountsWatch {
  let stamp = first.stamp;
  let now = first.accounts;
  let closed = false;
  const subscribers: Subscriber[] = [];

  const refused = (err: unknown, meanwhile = o.meanwhile) => logRefused(o.logger, source.file, err, meanwhile);
  /** Reads the file when its stamp changed, for every subscriber to take. */
  const read = () => {
    if (closed) return;
    const at = accountsFileStamp(source.file);
    if (at === stamp) return;
    stamp = at;
    try {
      now = readWatchedAccounts(source).accounts;
    } catch (err) {
      refused(err);
      return;
    }
    for (const s of subscribers) s.next = now;
  };
  /** Hands a subscriber what was read for it: at once when it is not busy, else once it is done; closed, nothing. */
  const hand = (s: Subscriber): Promise<void> => {
    if (s.busy) return s.busy;
    const wanted = s.next;
    if (!wanted || closed) return Promise.resolve();
    s.next = undefined;
    let taking: void | Promise<void>;
    try {
      taking = s.onChange(changeOf(s.had, wanted));
    } catch (err) {
      refused(err, s.meanwhile);
      return Promise.resolve();
    }
    if (!(taking instanceof Promise)) {
      s.had = wanted;
      return Promise.resolve();
    }
    s.busy = taking
      .then(
        () => void (s.had = wanted),
        (err: unknown) => refused(err, s.meanwhile),
      )
      .finally(() => (s.busy = undefined))
      .then(() => hand(s));
    return s.busy;
  };
  const handAll = () => void Promise.all(subscribers.map(hand));
  const timer = setInterval(() => {
    read();
    handAll();
  }, o.everyMs);
  timer.unref();

  return {
    subscribe(onChange, meanwhile) {
      // From the accounts first read: what was read since is the subscriber's first change.
      const s: Subscriber = { onChange, meanwhile, had: first.accounts, ...(now === first.accounts ? {} : { next: now }) };
      subscribers.push(s);
      void hand(s);
      return {
        look() {
          read();
          handAll();
          return hand(s);
        },
      };
    },
    async close() {
      closed = true;
      clearInterval(timer);
      await Promise.all(subscribers.map((s) => s.busy));
    },
  };
}
