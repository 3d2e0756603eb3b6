import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { programKinds } from '../../jobs/kinds.js';
import {
  accountConfig,
  accountPrefix,
  accountsFileStamp,
  chooseAccount,
  parseAccountsFile,
  readAccounts,
  readAccountsFile,
} from '../../config/accounts.js';
import { ConfigError, readConfig } from '../../config/read-config.js';

const dir = mkdtempSync(join(tmpdir(), 'isync-accounts-'));
let n = 0;
/** A file of its own per call, with this text. */
function file(text: string, ext = 'json'): string {
  const path = join(dir, `accounts-${++n}.${ext}`);
  writeFileSync(path, text);
  return path;
}

const service = {
  INVENTORY_BASE_URL: 'https://app.example.com',
  INVENTORY_ACCOUNT: 'env-account',
  INVENTORY_API_KEY: 'key-env-1',
  INVENTORY_API_SECRET: 'secret-env-2',
};

/** A value that looks like a secret: no problem line may hold it. */
const SECRET = 'sk-live-9f8e7d6c5b4a3f2e1d';

function problemsOf(f: () => unknown): string[] {
  try {
    f();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('ACCOUNTS_FILE', () => {
  it('reads a JSON file: each account with its own settings as text', () => {
    const path = file(JSON.stringify({ accounts: { acme: { INVENTORY_ACCOUNT: 'acme', INVENTORY_POST_PER_MINUTE: 60 }, beta: {} } }));
    expect(readAccountsFile(path, programKinds)).toEqual([
      { name: 'acme', settings: { INVENTORY_ACCOUNT: 'acme', INVENTORY_POST_PER_MINUTE: '60' } },
      { name: 'beta', settings: {} },
    ]);
  });

  it('reads a YAML file by its extension (.yaml and .yml)', () => {
    const text = [
      'accounts:',
      '  acme:',
      '    INVENTORY_ACCOUNT: acme',
      '    INVENTORY_ADAPTIVE_RATE: "on"',
      '  b-2:',
      '    ORDER_POLL_SECONDS: 30',
      '',
    ].join('\n');
    for (const ext of ['yaml', 'yml'])
      expect(readAccountsFile(file(text, ext), programKinds)).toEqual([
        { name: 'acme', settings: { INVENTORY_ACCOUNT: 'acme', INVENTORY_ADAPTIVE_RATE: 'on' } },
        { name: 'b-2', settings: { ORDER_POLL_SECONDS: '30' } },
      ]);
  });

  it('checks the names: 1 to 32 of a-z, 0-9 and -', () => {
    const long = 'a'.repeat(33);
    const problems = problemsOf(() =>
      parseAccountsFile(
        'a.json',
        JSON.stringify({ accounts: { Acme: {}, a_b: {}, [long]: {}, ok: {}, ['x'.repeat(32)]: {} } }),
        programKinds,
      ),
    );
    expect(problems).toHaveLength(3);
    expect(problems[0]).toBe('ACCOUNTS_FILE (a.json) account "Acme": an account\'s name is 1 to 32 of a-z, 0-9 and -');
    expect(problems[1]).toContain('account "a_b"');
    expect(problems[2]).toContain(`account "${long}"`);
  });

  it('refuses a file that is not an object of accounts, or names none', () => {
    expect(problemsOf(() => parseAccountsFile('a.json', '[]', programKinds))).toEqual([
      'ACCOUNTS_FILE (a.json): must be an object {"accounts": {"NAME": {"VARIABLE": "value", ...}}}',
    ]);
    expect(problemsOf(() => parseAccountsFile('a.json', '{"accounts": {}}', programKinds))).toEqual([
      'ACCOUNTS_FILE (a.json): names no account (give at least one under "accounts")',
    ]);
    expect(problemsOf(() => parseAccountsFile('a.json', '{"accounts": {"acme": [1]}}', programKinds))).toEqual([
      'ACCOUNTS_FILE (a.json) account "acme": must be an object of settings by variable name',
    ]);
  });

  it('refuses a setting of the deployment and an unknown variable: one line per problem, naming account and variable', () => {
    const problems = problemsOf(() =>
      parseAccountsFile(
        'a.json',
        JSON.stringify({
          accounts: {
            acme: { REDIS_URL: 'redis://other:6379', QUEUE_PREFIX: 'mine', INVENTORY_API_KEY: SECRET },
            beta: {
              INVENTORY_API_KEYS: SECRET,
              FEED_PAGE_SIZE_FILE: '/run/x',
              WORKER_HTTP_PORT: 1,
              METRICS_ACCOUNTS: '*',
              LOG_LEVEL: 'debug',
              CATALOG_CACHE_MB: 64,
            },
            gamma: { INVENTORY_API_SECRET: { nested: SECRET } },
          },
        }),
        programKinds,
      ),
    );
    expect(problems).toEqual([
      'ACCOUNTS_FILE (a.json) account "acme": REDIS_URL: is the deployment\'s, not an account\'s (set it in the environment)',
      'ACCOUNTS_FILE (a.json) account "acme": QUEUE_PREFIX: is the deployment\'s, not an account\'s (set it in the environment)',
      'ACCOUNTS_FILE (a.json) account "beta": INVENTORY_API_KEYS: is not a setting an account can hold (see docs/accounts.md)',
      // Only the secrets have a _FILE form.
      'ACCOUNTS_FILE (a.json) account "beta": FEED_PAGE_SIZE_FILE: is not a setting an account can hold (see docs/accounts.md)',
      'ACCOUNTS_FILE (a.json) account "beta": WORKER_HTTP_PORT: is the deployment\'s, not an account\'s (set it in the environment)',
      'ACCOUNTS_FILE (a.json) account "beta": METRICS_ACCOUNTS: is the deployment\'s, not an account\'s (set it in the environment)',
      'ACCOUNTS_FILE (a.json) account "beta": LOG_LEVEL: is the deployment\'s, not an account\'s (set it in the environment)',
      'ACCOUNTS_FILE (a.json) account "beta": CATALOG_CACHE_MB: is the deployment\'s, not an account\'s (set it in the environment)',
      'ACCOUNTS_FILE (a.json) account "gamma": INVENTORY_API_SECRET: must be text, a number or true/false',
    ]);
    expect(problems.join('\n')).not.toContain(SECRET);
  });

  it('never quotes the file when its syntax is wrong (JSON and YAML), and says where', () => {
    const json = problemsOf(() => readAccountsFile(file(`{"accounts": {"a": {"INVENTORY_API_KEY": ${SECRET}}}}`), programKinds));
    expect(json).toHaveLength(1);
    expect(json[0]).toMatch(/^ACCOUNTS_FILE \(.*\.json\): is not valid JSON/);
    expect(json[0]).not.toContain(SECRET);
    expect(json[0]).not.toContain('sk-');
    const comma = problemsOf(() => readAccountsFile(file(`{"accounts": {"a": {\n"INVENTORY_API_KEY": "${SECRET}",}}}`), programKinds));
    expect(comma[0]).toMatch(/is not valid JSON at line 2, column \d+$/);
    expect(comma[0]).not.toContain(SECRET);
    const yaml = problemsOf(() =>
      readAccountsFile(file(`accounts:\n  a: {INVENTORY_API_KEY: "${SECRET}"\n  b: c: d\n`, 'yaml'), programKinds),
    );
    expect(yaml[0]).toMatch(/^ACCOUNTS_FILE \(.*\.yaml\): is not valid YAML at line \d+, column \d+/);
    expect(yaml[0]).not.toContain(SECRET);
    expect(problemsOf(() => readAccountsFile(join(dir, 'none.json'), programKinds))).toEqual([
      `ACCOUNTS_FILE (${join(dir, 'none.json')}): cannot be read (ENOENT); give the path of a readable JSON or YAML file`,
    ]);
  });

  it("never quotes a value readConfig refuses in an account's settings, and names the account", () => {
    const path = file(JSON.stringify({ accounts: { acme: { INVENTORY_BASE_URL: `ftp://${SECRET}`, INVENTORY_POST_PER_MINUTE: SECRET } } }));
    const problems = problemsOf(() => readAccounts({ ...service, ACCOUNTS_FILE: path }, { service: true }, programKinds));
    expect(problems.length).toBeGreaterThanOrEqual(2);
    for (const p of problems) expect(p).toMatch(/^account "acme": /);
    expect(problems.some((p) => p.includes('INVENTORY_BASE_URL'))).toBe(true);
    expect(problems.some((p) => p.includes('INVENTORY_POST_PER_MINUTE'))).toBe(true);
    expect(problems.join('\n')).not.toContain(SECRET);
  });

  it("puts an account's settings over the environment's; the rest comes from the environment", () => {
    const path = file(
      JSON.stringify({
        accounts: { acme: { INVENTORY_ACCOUNT: 'acme', INVENTORY_POST_PER_MINUTE: 60, ORDER_POLL_SECONDS: 30 }, beta: {} },
      }),
    );
    const all = readAccounts({ ...service, ACCOUNTS_FILE: path }, { service: true }, programKinds);
    expect(all.file).toBe(path);
    const [acme, beta] = all.accounts;
    expect(acme!.name).toBe('acme');
    expect(acme!.config.accountName).toBe('acme');
    expect(acme!.config.service).toMatchObject({
      account: 'acme',
      baseUrl: 'https://app.example.com',
      apiKey: 'key-env-1',
      budgets: { postPerMinute: 60, getPerMinute: 120 },
    });
    // A kind's own setting may be an account's.
    expect(acme!.config.schedule.orderPollSeconds).toBe(30);
    expect(beta!.config.service).toMatchObject({ account: 'env-account', budgets: { postPerMinute: 120 } });
    expect(beta!.config.schedule.orderPollSeconds).toBe(5);
  });

  it("an account's X replaces the environment's X_FILE, and its X_FILE the environment's X", () => {
    const keyFile = join(dir, 'key.txt');
    writeFileSync(keyFile, 'key-from-file\n');
    const path = file(JSON.stringify({ accounts: { own: { INVENTORY_API_KEY: 'key-own' }, files: { INVENTORY_API_KEY_FILE: keyFile } } }));
    // The environment gives the key as a file: the account's own key wins (not "set one of them, not both").
    const fromFileEnv = readAccounts(
      { ...service, INVENTORY_API_KEY: undefined, INVENTORY_API_KEY_FILE: keyFile, ACCOUNTS_FILE: path },
      { service: true },
      programKinds,
    );
    expect(fromFileEnv.accounts.find((a) => a.name === 'own')!.config.service?.apiKey).toBe('key-own');
    expect(fromFileEnv.accounts.find((a) => a.name === 'files')!.config.service?.apiKey).toBe('key-from-file');
    // The environment gives the key itself: the account's file wins.
    const fromEnv = readAccounts({ ...service, ACCOUNTS_FILE: path }, { service: true }, programKinds);
    expect(fromEnv.accounts.find((a) => a.name === 'files')!.config.service?.apiKey).toBe('key-from-file');
    expect(fromEnv.accounts.find((a) => a.name === 'files')!.config.secretFiles).toMatchObject({ INVENTORY_API_KEY: keyFile });
    expect(fromEnv.accounts.find((a) => a.name === 'own')!.config.service?.apiKey).toBe('key-own');
  });

  it('gives each account its own hash-tagged prefix; `default` keeps the base', () => {
    expect(accountPrefix('isync', 'default')).toBe('isync');
    expect(accountPrefix('{isync}', 'default')).toBe('{isync}');
    expect(accountPrefix('isync', 'acme')).toBe('{isync-acme}');
    expect(accountPrefix('{isync}', 'acme')).toBe('{isync-acme}');
    expect(accountPrefix('a{b}c', 'x-1')).toBe('{abc-x-1}');
    const path = file(JSON.stringify({ accounts: { default: {}, acme: {} } }));
    const byName = (env: Record<string, string | undefined>) =>
      Object.fromEntries(
        readAccounts({ ...env, ACCOUNTS_FILE: path }, {}, programKinds).accounts.map((a) => [a.name, a.config.redis.prefix]),
      );
    expect(byName({})).toEqual({ default: 'isync', acme: '{isync-acme}' });
    expect(byName({ QUEUE_PREFIX: 'shop' })).toEqual({ default: 'shop', acme: '{shop-acme}' });
    expect(byName({ QUEUE_PREFIX: '{shop}' })).toEqual({ default: '{shop}', acme: '{shop-acme}' });
  });

  it('chooses the account of --account, or the only one; says which there are otherwise', () => {
    const two = readAccounts({ ACCOUNTS_FILE: file(JSON.stringify({ accounts: { acme: {}, beta: {} } })) }, {}, programKinds);
    expect(chooseAccount(two, 'beta').name).toBe('beta');
    expect(problemsOf(() => chooseAccount(two, undefined))).toEqual([
      `--account: ACCOUNTS_FILE (${two.file}) names 2 accounts (acme, beta); give --account NAME`,
    ]);
    expect(problemsOf(() => chooseAccount(two, 'gamma'))).toEqual([
      `--account: no account "gamma": ACCOUNTS_FILE (${two.file}) names acme, beta`,
    ]);
    const one = readAccounts({ ACCOUNTS_FILE: file(JSON.stringify({ accounts: { acme: {} } })) }, {}, programKinds);
    expect(chooseAccount(one, undefined).name).toBe('acme');
    const none = readAccounts({}, {}, programKinds);
    expect(chooseAccount(none, undefined).name).toBe('default');
    expect(chooseAccount(none, 'default').name).toBe('default');
    expect(problemsOf(() => chooseAccount(none, 'acme'))).toEqual([
      '--account: no account "acme": without ACCOUNTS_FILE the one account is "default"',
    ]);
  });

  it("without ACCOUNTS_FILE: one account, `default`, exactly readConfig's", () => {
    const env = { ...service, QUEUE_PREFIX: 'shop', ORDER_POLL_SECONDS: '7' };
    const all = readAccounts(env, { service: true }, programKinds);
    expect(all.file).toBeUndefined();
    expect(all.accounts).toHaveLength(1);
    expect(all.accounts[0]!.name).toBe('default');
    expect(all.accounts[0]!.config).toEqual(readConfig(env, { service: true }, programKinds));
    expect(all.accounts[0]!.config.accountName).toBeUndefined();
    // The same problems as readConfig's, without an account's name.
    expect(problemsOf(() => readAccounts({}, { service: true }, programKinds))).toEqual(
      problemsOf(() => readConfig({}, { service: true }, programKinds)),
    );
  });

  it('collects every problem of every account, each naming its account', () => {
    const path = file(JSON.stringify({ accounts: { acme: { INVENTORY_ACCOUNT: 'a/b' }, beta: { ORDER_POLL_SECONDS: 0 } } }));
    const problems = problemsOf(() => readAccounts({ ...service, ACCOUNTS_FILE: path }, { service: true }, programKinds));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^account "acme": INVENTORY_ACCOUNT/);
    expect(problems[1]).toMatch(/^account "beta": ORDER_POLL_SECONDS/);
  });

  it('stamps the file by size and time, to read it again only when it changed', () => {
    const path = file('{"accounts": {"a": {}}}');
    const first = accountsFileStamp(path);
    expect(first).toMatch(/^\d+:\d+(\.\d+)?$/);
    writeFileSync(path, '{"accounts": {"a": {}, "b": {}}}');
    expect(accountsFileStamp(path)).not.toBe(first);
    expect(accountsFileStamp(join(dir, 'gone.json'))).toBeUndefined();
  });

  it("accountConfig names the account in a problem and never reads the environment's ACCOUNTS_FILE as a setting", () => {
    const c = accountConfig(
      { ...service, ACCOUNTS_FILE: '/nowhere.json' },
      { name: 'acme', settings: {} },
      { service: true },
      programKinds,
    );
    expect(c.accountName).toBe('acme');
    expect(c.redis.prefix).toBe('{isync-acme}');
  });
});
