import { randomBytes } from 'node:crypto';
import { defaults } from '../../config/defaults.js';
import type { Config } from '../../config/read-config.js';
import type { CliIo } from '../app/cli-io.js';
import { sandboxConfig } from '../app/sandbox-config.js';
import { startFeedServer } from '../feed/feed-server.js';
import type { Kind } from '../kinds/kind.js';
import { describeRedis, safeRedisUrl } from '../redis/connection.js';
import { redisForRun } from '../redis/embedded-server.js';
import { sandboxDefaults, type SandboxProfile } from '../sandbox/sandbox-options.js';
import { startSandbox } from '../sandbox/sandbox.js';
import { demoFeed } from './demo-feed.js';

/** What the demo runs against: Redis (found or started), the sandbox service and the bundled feed. */
export interface DemoServices {
  redis: { url: string; private: boolean };
  sandbox: { url: string; account: string; key: string; secret: string };
  feed: { url: string; token: string };
}

export type Say = (line: string) => void;
export type Cleanups = Array<() => Promise<unknown>>;

/** Starts what the demo runs against, each stopped by a cleanup; says where each is. */
export async function startServices(
  io: CliIo,
  base: Config,
  profile: SandboxProfile | undefined,
  kinds: readonly Kind[],
  say: Say,
  cleanups: Cleanups,
): Promise<DemoServices> {
  // A cluster or Sentinel's primary is used as configured; a single Redis is found, or started for the demo.
  const redis =
    base.redis.clusterNodes || base.redis.sentinel
      ? { url: base.redis.url, private: false, stop: async () => undefined }
      : await redisForRun(base.redis.url, io.env.PATH);
  cleanups.unshift(() => redis.stop());
  say(
    redis.private
      ? `Redis: none answered at ${safeRedisUrl(base.redis.url)}; ` +
          `started a private redis-server at ${redis.url} (stopped when the demo ends).`
      : `Redis: ${describeRedis(base.redis)}`,
  );
  const [key, secret, token] = [0, 0, 0].map(() => randomBytes(12).toString('hex')) as [string, string, string];
  const sandbox = await startSandbox({ port: 0, data: 'demo', key, secret, profile: profile ?? sandboxDefaults.profile });
  cleanups.unshift(() => sandbox.close());
  say(
    `Sandbox service (demo account: 2 warehouses, 10 locations, 251 products; ${sandbox.profile} profile): ` +
      `${sandbox.url}/${sandbox.account}/api/`,
  );
  const feed = await startFeedServer({ names: kinds.map((k) => k.stream), port: 0, streams: demoFeed(), token });
  cleanups.unshift(() => feed.close());
  say(`Bundled upstream feed (orders, stock counts, BOMs, a few bad records): ${feed.url}`);
  return { redis, sandbox: { url: sandbox.url, account: sandbox.account, key, secret }, feed: { url: feed.url, token } };
}

/** The configuration of the demo: the environment's, on the sandbox, the feed and the demo's own prefix. */
export function demoConfig(base: Config, s: DemoServices): Config {
  const perMinute = defaults.demoRequestsPerMinute;
  return {
    ...sandboxConfig(s.sandbox, {
      // The service settings are the defaults, whatever the environment says: the demo's service is its sandbox.
      base: { ...base, service: undefined },
      budgets: { postPerMinute: perMinute, getPerMinute: perMinute, collectionPerHour: perMinute * 60 },
      catalogRefreshSeconds: defaults.demoCatalogRefreshSeconds,
    }),
    upstream: { url: s.feed.url, token: s.feed.token },
    redis: { ...base.redis, url: s.redis.url, prefix: `${base.redis.prefix}-demo` },
  };
}
