import { rootCertificates } from 'node:tls';
import type { Cluster, Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { reconnectDelay } from '../../src/redis/options.js';
import { createRedis, type RedisTarget } from '../../src/redis/connection.js';

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const readOnly = new Error("READONLY You can't write against a read only replica.");

/** A connection that never connects: its options are what is under test. */
function optionsOf(target: RedisTarget) {
  const r = createRedis(target, { lazyConnect: true });
  r.disconnect();
  return r;
}

describe('the connection factory', () => {
  describe('on every connection, as BullMQ asks for failover', () => {
    it('waits for a reconnection rather than fail a command, and reconnects for ever', () => {
      for (const target of [{ url: 'redis://h:1' }, { url: 'redis://h:1', sentinel: { nodes: [{ host: 's', port: 2 }], name: 'm' } }]) {
        const o = (optionsOf(target) as Redis).options;
        expect(o).toMatchObject({ maxRetriesPerRequest: null, enableOfflineQueue: true });
        expect([1, 5, 100, 10_000].map((n) => o.retryStrategy!(n))).toEqual([100, 1600, 2000, 2000]);
      }
      expect(reconnectDelay(3)).toBe(400);
    });
  });

  describe('to Sentinel', () => {
    const target: RedisTarget = {
      url: 'redis://unused:6379',
      sentinel: { nodes: [{ host: 's1', port: 26379 }], name: 'shop', password: 'sent-pw', tls: true },
      username: 'app',
      password: 'data-pw',
      tls: true,
      tlsCa: CA,
      db: 2,
    };

    it('asks the sentinels for the primary, follows +switch-master, and retries the sentinels for ever', () => {
      const o = (optionsOf(target) as Redis).options;
      expect(o).toMatchObject({
        sentinels: [{ host: 's1', port: 26379 }],
        name: 'shop',
        sentinelPassword: 'sent-pw',
        username: 'app',
        password: 'data-pw',
        db: 2,
        failoverDetector: true,
        enableTLSForSentinelMode: true,
      });
      expect(o.sentinelRetryStrategy!(1_000)).toBe(2000);
      expect(o.tls?.ca).toEqual([...rootCertificates, CA]);
      expect(o.sentinelTLS?.ca).toEqual([...rootCertificates, CA]);
    });

    it('reconnects and sends the command again when the primary it knew says READONLY', () => {
      const o = (optionsOf(target) as Redis).options;
      expect(o.reconnectOnError!(readOnly)).toBe(2);
      expect(o.reconnectOnError!(new Error('WRONGTYPE'))).toBe(false);
    });

    it('keeps all this in the connections BullMQ duplicates for its blocking commands', () => {
      const dup = (optionsOf(target) as Redis).duplicate({ lazyConnect: true });
      dup.disconnect();
      expect(dup.options).toMatchObject({
        sentinels: [{ host: 's1', port: 26379 }],
        name: 'shop',
        maxRetriesPerRequest: null,
        failoverDetector: true,
      });
    });
  });

  describe('to one server', () => {
    it('reconnects on READONLY (a DNS name moved to a new primary) and lets the command fail', () => {
      const o = (optionsOf({ url: 'rediss://:pw@h:6380', tlsCa: CA }) as Redis).options;
      expect(o.reconnectOnError!(readOnly)).toBe(true);
      expect(o.tls?.ca).toEqual([...rootCertificates, CA]);
      expect(o.password).toBe('pw');
    });

    it("leaves TLS to Node's trust store (NODE_EXTRA_CA_CERTS) without a CA file, and adds REDIS_PASSWORD", () => {
      const o = (optionsOf({ url: 'rediss://h:6380', password: 'from-env' }) as Redis).options;
      expect(o.tls).toEqual({});
      expect(o.password).toBe('from-env');
    });
  });

  describe('to a Redis Cluster', () => {
    it("gives every node's connection the seeds' credentials and TLS, and keeps the nodes' addresses as given", () => {
      const c = optionsOf({
        url: 'redis://unused',
        clusterNodes: [{ host: 'n1', port: 7000 }],
        username: 'app',
        password: 'pw',
        tls: true,
      }) as Cluster;
      expect(c.options.redisOptions).toMatchObject({ username: 'app', password: 'pw', tls: {}, maxRetriesPerRequest: null });
      expect(c.options.clusterRetryStrategy!(1_000, new Error('down'))).toBe(2000);
      let looked = '';
      c.options.dnsLookup!('n1.example.com', (_err, address) => (looked = address));
      expect(looked).toBe('n1.example.com');
    });
  });
});
