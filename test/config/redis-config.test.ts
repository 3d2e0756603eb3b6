import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, readConfig, secretsOf } from '../../config/read-config.js';
import { describeConfig } from '../../src/app/command-context.js';
import { connectRedis } from '../../src/app/connect-redis.js';
import { describeFailure } from '../../src/cli/exit-codes.js';
import { createLogger } from '../../src/log/logger.js';
import { describeRedis, redisSetting } from '../../src/redis/connection.js';

/** A password that must never be seen: in no problem, no log line, no error line. */
const PW = 'pw-Zq81x!kQ';
const ENC = encodeURIComponent(PW);

function problemsOf(env: Record<string, string>): string[] {
  try {
    readConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

const dir = mkdtempSync(join(tmpdir(), 'isync-redis-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const caFile = join(dir, 'ca.pem');
writeFileSync(caFile, PEM);

describe('Redis settings', () => {
  describe('REDIS_CLUSTER_NODES in URL form', () => {
    it('reads TLS, user and password from the entries, and keeps host:port entries as they were', () => {
      const c = readConfig({ REDIS_CLUSTER_NODES: `rediss://app:${ENC}@a.internal:7000, rediss://app:${ENC}@[::1]:7001` });
      expect(c.redis).toEqual({
        url: 'redis://127.0.0.1:6379',
        clusterNodes: [
          { host: 'a.internal', port: 7000 },
          { host: '::1', port: 7001 },
        ],
        username: 'app',
        password: PW,
        tls: true,
        prefix: '{isync}',
        prefixGiven: 'isync',
      });
      expect(readConfig({ REDIS_CLUSTER_NODES: `redis://:${ENC}@a:1,redis://:${ENC}@b` }).redis).toMatchObject({
        clusterNodes: [
          { host: 'a', port: 1 },
          { host: 'b', port: 6379 },
        ],
        password: PW,
      });
      expect(readConfig({ REDIS_CLUSTER_NODES: 'a:1,redis://b:2' }).redis).not.toHaveProperty('tls');
    });

    it('takes REDIS_PASSWORD for entries without one', () => {
      expect(readConfig({ REDIS_CLUSTER_NODES: 'a:1', REDIS_PASSWORD: PW }).redis.password).toBe(PW);
    });

    it.each([
      ['a port out of range', `redis://:${ENC}@a:99999`],
      ['a database number', `redis://:${ENC}@a:1/2`],
      ['another scheme', `http://:${ENC}@a:1`],
      ['TLS on some entries only', `rediss://:${ENC}@a:1,redis://:${ENC}@b:2`],
      ['different passwords', `redis://:${ENC}@a:1,redis://:other-${ENC}@b:2`],
      ['a password beside host:port entries', `a:1,redis://:${ENC}@b:2`],
      ['a password where a port should be', `a:${PW}`],
    ])('says what is wrong with %s, naming the variable, never the value', (_, value) => {
      const problems = problemsOf({ REDIS_CLUSTER_NODES: value });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^REDIS_CLUSTER_NODES must be host:port pairs, or redis\[s\]:\/\/\[user:password@\]host:port URLs/);
      for (const p of problems) expect(p).not.toMatch(/pw-Zq81x|Zq81x/);
    });

    it('refuses REDIS_PASSWORD beside a password in the entries', () => {
      expect(problemsOf({ REDIS_CLUSTER_NODES: `redis://:${ENC}@a:1`, REDIS_PASSWORD: PW })).toEqual([
        'REDIS_PASSWORD: REDIS_CLUSTER_NODES holds a password too; give it once',
      ]);
    });
  });

  describe('REDIS_SENTINELS', () => {
    it("reads the sentinels (a URL's port is 26379 by default), the name, their password, and the primary's user, password, TLS and db from REDIS_URL", () => {
      const c = readConfig({
        REDIS_SENTINELS: 's1:26380, redis://s2',
        REDIS_SENTINEL_NAME: 'shop',
        REDIS_SENTINEL_PASSWORD: `s-${PW}`,
        REDIS_URL: `rediss://app:${ENC}@ignored:1/3`,
      });
      expect(c.redis).toEqual({
        url: `rediss://app:${ENC}@ignored:1/3`,
        sentinel: {
          nodes: [
            { host: 's1', port: 26380 },
            { host: 's2', port: 26379 },
          ],
          name: 'shop',
          password: `s-${PW}`,
        },
        username: 'app',
        password: PW,
        tls: true,
        db: 3,
        prefix: 'isync',
      });
      expect(readConfig({ REDIS_SENTINELS: 's1:1', REDIS_SENTINEL_NAME: 'm', REDIS_PASSWORD: PW }).redis).toMatchObject({ password: PW });
      expect(readConfig({ REDIS_SENTINELS: 'rediss://s1:1', REDIS_SENTINEL_NAME: 'm' }).redis.sentinel).toEqual({
        nodes: [{ host: 's1', port: 1 }],
        name: 'm',
        tls: true,
      });
    });

    it('says what is missing or does not go together, one line each', () => {
      expect(problemsOf({ REDIS_SENTINELS: 's1:1' })).toEqual([
        'REDIS_SENTINEL_NAME: is required with REDIS_SENTINELS (the name the sentinels monitor the primary under)',
      ]);
      expect(problemsOf({ REDIS_SENTINEL_NAME: 'm', REDIS_SENTINEL_PASSWORD: PW }).sort()).toEqual([
        'REDIS_SENTINEL_NAME: is used only with REDIS_SENTINELS; set REDIS_SENTINELS too, or unset it',
        'REDIS_SENTINEL_PASSWORD: is used only with REDIS_SENTINELS; set REDIS_SENTINELS too, or unset it',
      ]);
      expect(problemsOf({ REDIS_SENTINELS: 's1:1', REDIS_SENTINEL_NAME: 'm', REDIS_CLUSTER_NODES: 'a:1' })).toEqual([
        'REDIS_SENTINELS: cannot be used with REDIS_CLUSTER_NODES (a Redis Cluster fails over by itself): set one of them',
      ]);
      expect(problemsOf({ REDIS_SENTINELS: `redis://:${ENC}@s1:1`, REDIS_SENTINEL_NAME: 'm' })).toEqual([
        "REDIS_SENTINELS: put the sentinels' password in REDIS_SENTINEL_PASSWORD, not in the addresses",
      ]);
      expect(problemsOf({ REDIS_SENTINELS: 's1:1', REDIS_SENTINEL_NAME: 'm', REDIS_URL: 'redis://x/db' })).toEqual([
        'REDIS_URL: its path must be a database number, such as /0',
      ]);
      expect(problemsOf({ REDIS_SENTINELS: 's1:1', REDIS_SENTINEL_NAME: 'm m' })[0]).toMatch(/^REDIS_SENTINEL_NAME must be the name/);
    });
  });

  describe('REDIS_TLS_CA_FILE', () => {
    it('reads the private CA for a TLS Redis', () => {
      expect(readConfig({ REDIS_URL: 'rediss://r:6380', REDIS_TLS_CA_FILE: caFile }).redis.tlsCa).toBe(PEM);
      expect(readConfig({ REDIS_CLUSTER_NODES: 'rediss://a:1', REDIS_TLS_CA_FILE: caFile }).redis.tlsCa).toBe(PEM);
    });

    it('names the file it cannot read or that holds no certificate, and refuses it without TLS', () => {
      const missing = join(dir, 'missing.pem');
      expect(problemsOf({ REDIS_URL: 'rediss://r:6380', REDIS_TLS_CA_FILE: missing })).toEqual([
        `REDIS_TLS_CA_FILE: cannot read ${missing} (ENOENT)`,
      ]);
      const notPem = join(dir, 'key.txt');
      writeFileSync(notPem, 'not a certificate');
      expect(problemsOf({ REDIS_URL: 'rediss://r:6380', REDIS_TLS_CA_FILE: notPem })).toEqual([
        `REDIS_TLS_CA_FILE: ${notPem} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`,
      ]);
      expect(problemsOf({ REDIS_TLS_CA_FILE: caFile })).toEqual([
        'REDIS_TLS_CA_FILE: is used only with TLS: rediss:// in REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS',
      ]);
    });
  });

  describe('every Redis password', () => {
    const configs = [
      readConfig({ REDIS_URL: `rediss://app:${ENC}@r:6380` }),
      readConfig({ REDIS_URL: 'redis://r:6379', REDIS_PASSWORD: PW }),
      readConfig({ REDIS_CLUSTER_NODES: `redis://:${ENC}@127.0.0.1:1` }),
      readConfig({ REDIS_SENTINELS: '127.0.0.1:1', REDIS_SENTINEL_NAME: 'm', REDIS_SENTINEL_PASSWORD: PW, REDIS_URL: `redis://:${ENC}@x` }),
    ];

    it('is a secret of the configuration', () => {
      for (const c of configs) expect(secretsOf(c)).toContain(PW);
    });

    it('is in no description of where Redis is, nor in the logged configuration', () => {
      let out = '';
      const logger = createLogger({
        level: 'info',
        secrets: [],
        destination: new Writable({ write: (chunk, _, done) => ((out += String(chunk)), done()) }),
      });
      for (const c of configs) {
        expect(describeRedis(c.redis)).not.toContain(PW);
        expect(describeRedis(c.redis)).not.toContain(ENC);
        expect(redisSetting(c.redis)).not.toContain(ENC);
        logger.info({ config: describeConfig(c) }, 'configuration');
      }
      expect(out).toContain('configuration');
      expect(out).not.toContain(PW);
      expect(out).not.toContain(ENC);
    });

    it('is redacted from a log line that holds it', () => {
      let out = '';
      const logger = createLogger({
        level: 'info',
        secrets: secretsOf(configs[2]!),
        destination: new Writable({ write: (chunk, _, done) => ((out += String(chunk)), done()) }),
      });
      logger.error({ err: `AUTH ${PW} refused`, url: `redis://:${ENC}@h:1` }, `could not log in with ${PW}`);
      expect(out).toContain('[REDACTED]');
      expect(out).not.toContain(PW);
      expect(out).not.toContain(ENC);
    });

    it('is in no line of the error when Redis cannot be reached', async () => {
      for (const c of configs.slice(2)) {
        const err = await connectRedis(c.redis, { timeoutMs: 300 }).then(
          () => undefined,
          (e: unknown) => e,
        );
        const { lines } = describeFailure(err);
        expect(lines[0]).toMatch(/^Redis could not be reached at /);
        expect(lines.join('\n')).not.toContain(PW);
        expect(lines.join('\n')).not.toContain(ENC);
      }
    });
  });
});
