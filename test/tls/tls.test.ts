import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRedis, deleteKeysUnder, type RedisConnection } from '../../src/redis/connection.js';
import { runCli } from '../cli/run-cli.js';
import { startStack, type Stack } from '../cli/stack.js';
import { orderRecord, orderState } from '../helpers/order-records.js';
import { redisEnv, redisTarget } from '../helpers/redis.js';

const settings = () => inject('redisSettings')!;
const password = () => decodeURIComponent(new URL(settings().REDIS_URL!).password);

describe('on a Redis that speaks TLS only, with a private CA and a password', () => {
  let stack: Stack;
  let redis: RedisConnection;
  let env: Record<string, string>;
  beforeAll(async () => {
    stack = await startStack({ orders: [orderRecord('TLS-1'), orderRecord('TLS-2')] }, 'tls-cli');
    redis = createRedis(redisTarget());
    env = { ...stack.env, ...redisEnv(), LOG_LEVEL: 'info' };
  });
  afterAll(async () => {
    await deleteKeysUnder(redis, stack.prefix);
    redis.disconnect();
    await stack.close();
  });

  it('syncs every record through the CLI (REDIS_URL=rediss://:password@..., REDIS_TLS_CA_FILE), the password in no line', async () => {
    const r = await runCli(['sync', '--once'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Every record synced.');
    for (const id of ['TLS-1', 'TLS-2'])
      expect(orderState(stack.sandbox.admin.state(), id).orders.map((o) => o.statusId)).toEqual(['ORDER_COMPLETED']);
    // The program's keys are on the TLS Redis.
    expect(await redis.exists(`${stack.prefix}:cursor:orders`)).toBe(1);
    const status = await runCli(['status', '--json'], env);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toBeTruthy();
    for (const out of [r.stdout, r.stderr, status.stdout, status.stderr]) expect(out).not.toContain(password());
  });

  it("trusts the CA given the standard way, in Node's NODE_EXTRA_CA_CERTS", async () => {
    const { REDIS_TLS_CA_FILE: ca, ...rest } = env;
    const r = await runCli(['jobs', 'list', '--json'], { ...rest, NODE_EXTRA_CA_CERTS: ca! });
    expect(r.code, r.stderr).toBe(0);
  });

  it('says the certificate is not trusted and where to give the CA (exit 3), without the password', async () => {
    const { REDIS_TLS_CA_FILE: _ca, ...rest } = env;
    const r = await runCli(['jobs', 'list'], rest);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('Redis could not be reached at rediss://:***@127.0.0.1:');
    expect(r.stderr).toContain('SELF_SIGNED_CERT_IN_CHAIN');
    expect(r.stderr).toContain('REDIS_TLS_CA_FILE');
    expect(r.stderr).not.toContain(password());
  });
});
