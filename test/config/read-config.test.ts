import { describe, expect, it } from 'vitest';
import { programKinds } from '../../jobs/kinds.js';
import { ConfigError, readConfig, secretsOf } from '../../config/read-config.js';

const service = {
  INVENTORY_BASE_URL: 'https://app.example.com/',
  INVENTORY_ACCOUNT: 'acme',
  INVENTORY_API_KEY: 'key-123',
  INVENTORY_API_SECRET: 'secret-456',
};

function problemsOf(env: Record<string, string>, needs = { service: true }): string[] {
  try {
    readConfig(env, needs, programKinds);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('configuration', () => {
  describe('with every required variable', () => {
    it('applies the defaults of docs/reference.md', () => {
      const c = readConfig(service, { service: true }, programKinds);
      expect(c.service?.baseUrl).toBe('https://app.example.com');
      expect(c.service?.budgets).toMatchObject({ postPerMinute: 120, getPerMinute: 120, collectionPerHour: 300 });
      // No total budget unless the account has one.
      expect(c.service?.budgets).not.toHaveProperty('requestsPerMinute');
      expect(c.redis).toEqual({ url: 'redis://127.0.0.1:6379', prefix: 'isync' });
      expect(c.schedule.orderPollSeconds).toBe(5);
      expect(c.schedule.stockSyncCron).toBe('0 19 * * *');
      expect(c.http.port).toBe(9464);
      expect(c.logLevel).toBe('info');
    });

    it('reads numbers and lists the secrets', () => {
      const c = readConfig(
        { ...service, INVENTORY_POST_PER_MINUTE: '60', UPSTREAM_URL: 'http://feed', UPSTREAM_TOKEN: 'tok-789' },
        {},
        programKinds,
      );
      expect(c.service?.budgets.postPerMinute).toBe(60);
      expect(secretsOf(c).sort()).toEqual(['key-123', 'secret-456', 'tok-789']);
    });
  });

  describe('with a total request budget', () => {
    it('reads INVENTORY_REQUESTS_PER_MINUTE beside the per-class budgets', () => {
      const c = readConfig({ ...service, INVENTORY_REQUESTS_PER_MINUTE: '120' }, { service: true }, programKinds);
      expect(c.service?.budgets).toMatchObject({ postPerMinute: 120, getPerMinute: 120, collectionPerHour: 300, requestsPerMinute: 120 });
    });

    it('refuses a total that is not a positive whole number, naming the variable', () => {
      expect(problemsOf({ ...service, INVENTORY_REQUESTS_PER_MINUTE: '0' })).toEqual([
        'INVENTORY_REQUESTS_PER_MINUTE must be greater than 0',
      ]);
      expect(problemsOf({ ...service, INVENTORY_REQUESTS_PER_MINUTE: '1.5' })).toEqual([
        'INVENTORY_REQUESTS_PER_MINUTE must be a whole number',
      ]);
    });
  });

  describe('with wrong or missing settings', () => {
    it('names each missing variable on a line of its own', () => {
      const problems = problemsOf({});
      expect(problems).toHaveLength(4);
      for (const v of ['INVENTORY_BASE_URL', 'INVENTORY_ACCOUNT', 'INVENTORY_API_KEY', 'INVENTORY_API_SECRET']) {
        expect(problems.some((p) => p.startsWith(`${v}:`))).toBe(true);
      }
    });

    it.each(['.', '..'])('refuses INVENTORY_ACCOUNT %j: a dot-segment names no account', (account) => {
      expect(problemsOf({ ...service, INVENTORY_ACCOUNT: account })).toEqual([
        'INVENTORY_ACCOUNT must be one URL path segment, not . or ..',
      ]);
    });

    it('names the variable and the rule for each bad value, all at once', () => {
      const problems = problemsOf({
        ...service,
        INVENTORY_POST_PER_MINUTE: 'fast',
        REDIS_URL: 'localhost:6379',
        LOG_LEVEL: 'loud',
        STOCK_SYNC_TZ: 'Mars/Olympus',
        WORKER_HTTP_PORT: '70000',
      });
      expect(problems).toHaveLength(5);
      expect(problems.find((p) => p.startsWith('INVENTORY_POST_PER_MINUTE'))).toMatch(/whole number/);
      expect(problems.find((p) => p.startsWith('REDIS_URL'))).toMatch(/redis:\/\//);
      expect(problems.find((p) => p.startsWith('LOG_LEVEL'))).toMatch(/one of/);
      expect(problems.find((p) => p.startsWith('STOCK_SYNC_TZ'))).toMatch(/IANA/);
      expect(problems.find((p) => p.startsWith('WORKER_HTTP_PORT'))).toMatch(/65535/);
    });

    it('reads METRICS_ACCOUNTS: names, or * for every account; none by default; a bad name named', () => {
      expect(readConfig(service, {}, programKinds).http.metricsAccounts).toEqual([]);
      expect(readConfig({ ...service, METRICS_ACCOUNTS: 'acme, northwind' }, {}, programKinds).http.metricsAccounts).toEqual([
        'acme',
        'northwind',
      ]);
      expect(readConfig({ ...service, METRICS_ACCOUNTS: '*' }, {}, programKinds).http.metricsAccounts).toBe('*');
      const problems = problemsOf({ ...service, METRICS_ACCOUNTS: 'acme,North Wind' });
      expect(problems).toEqual([expect.stringMatching(/^METRICS_ACCOUNTS.*not "North Wind"$/)]);
    });

    describe('when caps or retention are set', () => {
      it('reads them, with the defaults otherwise', () => {
        expect(readConfig(service, {}, programKinds)).toMatchObject({
          limits: { maxRecordBytes: 4 * 1024 * 1024, feedMaxPageBytes: 64 * 1024 * 1024 },
          retention: { badRecordsKeep: 10_000, badRecordsKeepDays: 30 },
        });
        const c = readConfig(
          {
            ...service,
            MAX_RECORD_BYTES: '1024',
            FEED_MAX_PAGE_BYTES: '4096',
            INVENTORY_MAX_RESPONSE_BYTES: '8192',
            BAD_RECORDS_KEEP: '5',
            BAD_RECORDS_KEEP_DAYS: '2',
          },
          {},
          programKinds,
        );
        expect(c).toMatchObject({
          limits: { maxRecordBytes: 1024, feedMaxPageBytes: 4096 },
          retention: { badRecordsKeep: 5, badRecordsKeepDays: 2 },
        });
        expect(c.service?.maxResponseBytes).toBe(8192);
      });

      it('refuses a page cap below the record cap, and caps that are not whole numbers above 0', () => {
        expect(problemsOf({ ...service, MAX_RECORD_BYTES: '4096', FEED_MAX_PAGE_BYTES: '1024' })).toEqual([
          'FEED_MAX_PAGE_BYTES: must be at least MAX_RECORD_BYTES (a page must hold one record)',
        ]);
        expect(problemsOf({ ...service, BAD_RECORDS_KEEP: '0', INVENTORY_MAX_RESPONSE_BYTES: '1.5' })).toEqual([
          'INVENTORY_MAX_RESPONSE_BYTES must be a whole number',
          'BAD_RECORDS_KEEP must be greater than 0',
        ]);
      });
    });

    it('never echoes a secret value in a problem', () => {
      const problems = problemsOf({ ...service, INVENTORY_BASE_URL: 'not a url secret-456' });
      expect(problems.join('\n')).not.toContain('secret-456');
    });

    it('does not require the service where the command does not need it', () => {
      expect(problemsOf({}, { service: false })).toEqual([]);
    });
  });

  describe('with REDIS_CLUSTER_NODES', () => {
    it('reads the seed nodes (IPv6 in brackets) and wraps a QUEUE_PREFIX without a hash tag in one', () => {
      const c = readConfig(
        { REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-b.internal:7001,[::1]:7002', QUEUE_PREFIX: 'shop' },
        {},
        programKinds,
      );
      expect(c.redis.clusterNodes).toEqual([
        { host: '10.0.0.1', port: 7000 },
        { host: 'redis-b.internal', port: 7001 },
        { host: '::1', port: 7002 },
      ]);
      expect(c.redis).toMatchObject({ prefix: '{shop}', prefixGiven: 'shop' });
    });

    it('keeps a prefix that has a hash tag already, and wraps one whose braces hold nothing', () => {
      expect(readConfig({ REDIS_CLUSTER_NODES: 'a:1', QUEUE_PREFIX: 'eu-{shop}' }, {}, programKinds).redis).toEqual({
        url: 'redis://127.0.0.1:6379',
        clusterNodes: [{ host: 'a', port: 1 }],
        prefix: 'eu-{shop}',
      });
      expect(readConfig({ REDIS_CLUSTER_NODES: 'a:1', QUEUE_PREFIX: 'shop{}' }, {}, programKinds).redis.prefix).toBe('{shop{}}');
    });

    it('leaves the prefix alone without a cluster', () => {
      expect(readConfig({ QUEUE_PREFIX: 'shop' }, {}, programKinds).redis).toEqual({ url: 'redis://127.0.0.1:6379', prefix: 'shop' });
    });

    it('names the variable and the entry that is not host:port', () => {
      const problems = problemsOf({ REDIS_CLUSTER_NODES: '10.0.0.1:7000,10.0.0.2', REDIS_URL: 'nope' }, { service: false });
      expect(problems).toHaveLength(2);
      expect(problems.find((p) => p.startsWith('REDIS_CLUSTER_NODES'))).toContain('entry 2 of 2 is neither host:port nor redis[s]://');
    });
  });
});
