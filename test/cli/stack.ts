import type { Redis } from 'ioredis';
import { startFeedServer, type FeedServer } from '../../src/feed/feed-server.js';
import type { StreamName } from '../../src/records/stream-name.js';
import type { SandboxOptions } from '../../src/sandbox/sandbox-options.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { connect, deletePrefix, redisUrl, uniquePrefix } from '../helpers/redis.js';
import { baseEnv } from './run-cli.js';
import { STREAMS } from '../../jobs/kinds.js';

/** A sandbox service, a feed and a fresh prefix, with the environment a CLI child needs to use them. */
export interface Stack {
  sandbox: Sandbox;
  feed: FeedServer;
  redis: Redis;
  prefix: string;
  env: Record<string, string>;
  close(): Promise<void>;
}

export const SECRETS = { key: 'key-7c1f9e', secret: 'sec-4b8d2a9f61', token: 'tok-93e1c7d5b2' };

export async function startStack(
  streams: Partial<Record<StreamName, unknown[]>> = {},
  name = 'cli',
  sandboxOptions: Pick<SandboxOptions, 'profile' | 'data'> = {},
): Promise<Stack> {
  const sandbox = await startSandbox({ port: 0, data: 'demo', key: SECRETS.key, secret: SECRETS.secret, ...sandboxOptions });
  const feed = await startFeedServer({ names: STREAMS, port: 0, streams, token: SECRETS.token });
  const redis = connect();
  const prefix = uniquePrefix(name);
  const env = {
    ...baseEnv(),
    REDIS_URL: redisUrl(),
    QUEUE_PREFIX: prefix,
    INVENTORY_BASE_URL: sandbox.url,
    INVENTORY_ACCOUNT: sandbox.account,
    INVENTORY_API_KEY: SECRETS.key,
    INVENTORY_API_SECRET: SECRETS.secret,
    INVENTORY_POST_PER_MINUTE: '6000',
    INVENTORY_GET_PER_MINUTE: '6000',
    INVENTORY_COLLECTION_PER_HOUR: '3000',
    UPSTREAM_URL: feed.url,
    UPSTREAM_TOKEN: SECRETS.token,
    CATALOG_REFRESH_SECONDS: '0',
    RETRY_BASE_DELAY_MS: '100',
    RETRY_MAX_DELAY_MS: '500',
    WORKER_HTTP_PORT: '0',
  };
  return {
    sandbox,
    feed,
    redis,
    prefix,
    env,
    async close() {
      await deletePrefix(redis, prefix);
      redis.disconnect();
      await feed.close();
      await sandbox.close();
    },
  };
}
