import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, readConfig, secretsOf } from '../../config/read-config.js';
import { secretSettings } from '../../config/schema.js';
import { baseEnv, freshCwd, runCli } from '../cli/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'isync-secret-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** A file holding `text`, as a secret manager writes it. */
function secretFile(text: string): string {
  const path = join(dir, `secret-${++n}`);
  writeFileSync(path, text);
  return path;
}

const service = { INVENTORY_BASE_URL: 'https://app.example.com', INVENTORY_ACCOUNT: 'acme' };
const KEY = 'key-from-file-8d2f';
const SECRET = 'secret-from-file-41ac9e';

function problemsOf(env: Record<string, string>, fromDotenv?: ReadonlySet<string>): string[] {
  try {
    readConfig(env, { service: true }, [], fromDotenv);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('secrets from files', () => {
  describe('when the key and secret are given as files', () => {
    it('reads them, without the trailing newline (\\n or \\r\\n), and lists them as secrets', () => {
      const keyFile = secretFile(`${KEY}\n`);
      const secretFile2 = secretFile(`${SECRET}\r\n`);
      const c = readConfig({ ...service, INVENTORY_API_KEY_FILE: keyFile, INVENTORY_API_SECRET_FILE: secretFile2 }, { service: true });
      expect(c.service).toMatchObject({ apiKey: KEY, apiSecret: SECRET });
      expect(c.secretFiles).toEqual({ INVENTORY_API_KEY: keyFile, INVENTORY_API_SECRET: secretFile2 });
      expect(secretsOf(c)).toEqual(expect.arrayContaining([KEY, SECRET]));
    });

    it('keeps a newline inside the value, and drops only the ones at its end', () => {
      const c = readConfig({ ...service, INVENTORY_API_KEY: 'k-1', INVENTORY_API_SECRET_FILE: secretFile('two\nlines\n\n') });
      expect(c.service?.apiSecret).toBe('two\nlines');
    });
  });

  describe('for every secret setting', () => {
    it('takes the _FILE form, and the value is a secret as from the environment', () => {
      const values: Record<string, string> = {
        INVENTORY_API_KEY: 'key-9a1b',
        INVENTORY_API_SECRET: 'sec-7c2d',
        UPSTREAM_TOKEN: 'tok-3e4f',
        REDIS_PASSWORD: 'redis-pw-5a6b',
        REDIS_SENTINEL_PASSWORD: 'sentinel-pw-7c8d',
        DASHBOARD_PASSWORD: 'dashboard-pw-9e0f',
        ALERT_WEBHOOK_URL: 'https://hooks.example.com/T0/B0/x1y2z3',
        INGEST_SECRET: `whsec_${Buffer.from('ingest-key-0123456789abcdef').toString('base64')}`,
        INGEST_HMAC_SECRET: 'store-hmac-1a2b',
        SHOPIFY_ACCESS_TOKEN: 'shpat_0a1b2c3d4e',
      };
      expect(Object.keys(values).sort()).toEqual([...secretSettings].sort());
      const env: Record<string, string> = {
        ...service,
        UPSTREAM_URL: 'http://feed.example.com',
        REDIS_SENTINELS: '10.0.0.1:26379',
        REDIS_SENTINEL_NAME: 'mymaster',
        SHOPIFY_STORE_URL: 'https://my-store.myshopify.com',
      };
      for (const [name, value] of Object.entries(values)) env[`${name}_FILE`] = secretFile(`${value}\n`);
      const c = readConfig(env, { service: true });
      expect(c.upstream?.token).toBe(values.UPSTREAM_TOKEN);
      expect(c.dashboard.password).toBe(values.DASHBOARD_PASSWORD);
      expect(c.alerts.webhookUrl).toBe(values.ALERT_WEBHOOK_URL);
      expect(c.shopify?.token).toBe(values.SHOPIFY_ACCESS_TOKEN);
      expect(c.ingest.secret).toBe(values.INGEST_SECRET);
      expect(c.secretFiles.INGEST_SECRET).toBeDefined();
      expect(secretsOf(c)).toEqual(expect.arrayContaining(Object.values(values)));
    });

    it("applies the setting's own rules to the file's value, without showing it", () => {
      const problems = problemsOf({
        ...service,
        INVENTORY_API_KEY: 'k',
        INVENTORY_API_SECRET: 's',
        ALERT_WEBHOOK_URL_FILE: secretFile('not-a-url-0b7e\n'),
      });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^ALERT_WEBHOOK_URL/);
      expect(problems.join('\n')).not.toContain('not-a-url-0b7e');
    });
  });

  describe('when both X and X_FILE are set', () => {
    it('is one problem line naming both variables, never the value', () => {
      const problems = problemsOf({
        ...service,
        INVENTORY_API_KEY: 'env-key-55aa',
        INVENTORY_API_KEY_FILE: secretFile(`${KEY}\n`),
        INVENTORY_API_SECRET: 'env-secret-66bb',
      });
      expect(problems).toEqual(['INVENTORY_API_KEY, INVENTORY_API_KEY_FILE: set one of them, not both']);
      expect(problems.join('\n')).not.toMatch(/env-key-55aa|8d2f|env-secret-66bb/);
    });

    it('says which one the .env file set, and that the environment wins only where .env is silent', () => {
      const env = {
        ...service,
        INVENTORY_API_KEY: 'dotenv-key-77cc',
        INVENTORY_API_KEY_FILE: secretFile(`${KEY}\n`),
        INVENTORY_API_SECRET: 's-9',
      };
      const problems = problemsOf(env, new Set(['INVENTORY_API_KEY']));
      expect(problems).toEqual([
        'INVENTORY_API_KEY (set in .env), INVENTORY_API_KEY_FILE (set in the environment): set one of them, not both; ' +
          'remove one (the .env file only fills in what the environment lacks)',
      ]);
      expect(problems.join('\n')).not.toMatch(/dotenv-key-77cc|8d2f/);
    });

    it('is told so by the program when the .env file of the working folder set one', async () => {
      const cwd = freshCwd();
      writeFileSync(join(cwd, '.env'), 'INVENTORY_API_SECRET_FILE=/run/secrets/api-secret\n');
      const r = await runCli(['jobs', 'list'], { ...baseEnv(), INVENTORY_API_SECRET: 'env-secret-88dd' }, { cwd });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        'INVENTORY_API_SECRET (set in the environment), INVENTORY_API_SECRET_FILE (set in .env): set one of them, not both',
      );
    }, 60_000);
  });

  describe('when neither is set where one is required', () => {
    it('names the variable and its file form', () => {
      expect(problemsOf({ ...service, INVENTORY_API_KEY: 'k-1' })).toEqual([
        'INVENTORY_API_SECRET: is required, or INVENTORY_API_SECRET_FILE naming a file that holds it (see README, "Configuration")',
      ]);
    });
  });

  describe('when the file cannot be used', () => {
    it('names the variable and the path of a missing file (and does not also call the setting missing)', () => {
      const path = join(dir, 'no-such-file');
      expect(problemsOf({ ...service, INVENTORY_API_KEY: 'k-1', INVENTORY_API_SECRET_FILE: path })).toEqual([
        `INVENTORY_API_SECRET_FILE: cannot read ${path} (ENOENT)`,
      ]);
    });

    it('names the path of an unreadable file', () => {
      const path = secretFile(`${SECRET}\n`);
      chmodSync(path, 0o000);
      const problems = problemsOf({ ...service, INVENTORY_API_KEY: 'k-1', INVENTORY_API_SECRET_FILE: path });
      // root reads any file: then it is read, and there is no problem to name.
      if (process.getuid?.() === 0) expect(problems).toEqual([]);
      else expect(problems).toEqual([`INVENTORY_API_SECRET_FILE: cannot read ${path} (EACCES)`]);
      expect(problems.join('\n')).not.toContain(SECRET);
    });

    it('names the variable and the path of a file that is a folder', () => {
      expect(problemsOf({ ...service, INVENTORY_API_KEY: 'k-1', INVENTORY_API_SECRET_FILE: dir })).toEqual([
        `INVENTORY_API_SECRET_FILE: cannot read ${dir} (EISDIR)`,
      ]);
    });

    it('names the variable and the path of an empty file (newlines only count as empty)', () => {
      const path = secretFile('\r\n\n');
      expect(problemsOf({ ...service, INVENTORY_API_KEY: 'k-1', INVENTORY_API_SECRET_FILE: path })).toEqual([
        `INVENTORY_API_SECRET_FILE: ${path} is empty`,
      ]);
    });
  });
});
