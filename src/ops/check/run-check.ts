import type { Budgets } from '../../../config/read-config.js';
import type { CatalogApi } from '../../catalog/types.js';
import type { ServiceApi } from '../../client/service-api.js';
import type { RedisKeys } from '../../redis/connection.js';
import { checkFeed, type CheckFeedOptions, type FeedPart } from './check-feed.js';
import { findGaps } from './check-gaps.js';
import { checkRedis, type CheckRedisOptions } from './check-redis.js';
import { checkService } from './check-service.js';
import type { CheckReport, FeedCheck, RedisCheck, ServiceCheck } from './check-types.js';
import type { OpsKind } from '../ops-kind.js';

export interface RunCheckOptions {
  client: ServiceApi;
  /** The catalog the jobs resolve names with (a mapping it applies applies to the gaps too). */
  catalog: CatalogApi;
  redis: CheckRedisOptions['redis'];
  keys: Pick<RedisKeys, 'cursor' | 'prefix'>;
  queues: CheckRedisOptions['queues'];
  service: { baseUrl: string; budgets: Budgets };
  /** Where Redis is, as it may be shown. */
  redisAt: string;
  /** The feed; undefined when UPSTREAM_URL is not set. */
  feed?: { url: string; upstream: CheckFeedOptions['upstream']; pageSize: number };
  /** The streams to check, as their kinds say. */
  kinds: readonly OpsKind[];
  signal?: AbortSignal;
}

/**
 * Everything a first run stands on, read without writing anything to the service, the feed's cursors or the
 * queues: the service, Redis, the first page of each stream, and the names those pages use that the account lacks.
 */
export async function runCheck(o: RunCheckOptions): Promise<CheckReport> {
  let serviceCalls = 0;
  const redis = await checkRedis({ redis: o.redis, at: o.redisAt, prefix: o.keys.prefix, queues: o.queues });
  const [service, feedPart] = await Promise.all([
    checkService({ client: o.client, baseUrl: o.service.baseUrl, budgets: o.service.budgets, onRequest: () => serviceCalls++ }),
    o.feed
      ? checkFeed({ upstream: o.feed.upstream, redis: o.redis, keys: o.keys, kinds: o.kinds, pageSize: o.feed.pageSize, signal: o.signal })
      : Promise.resolve<FeedPart | undefined>(undefined),
  ]);
  const feed: FeedCheck = { configured: !!o.feed, url: o.feed ? shownUrl(o.feed.url) : null, streams: feedPart?.streams ?? [] };
  const comparable = service.state === 'ok' && feed.streams.some((s) => s.state === 'ok');
  const found = comparable && feedPart ? await findGaps(o.catalog, feedPart.records) : undefined;
  const unreachable = service.state !== 'ok' || feed.streams.some((s) => s.state !== 'ok');
  const gaps = found?.gaps ?? null;
  const verdict = unreachable ? 'unreachable' : gaps?.length ? 'gaps' : 'ready';
  return {
    at: new Date().toISOString(),
    verdict,
    exitCode: verdict === 'ready' ? 0 : verdict === 'gaps' ? 1 : 3,
    service,
    redis,
    feed,
    gaps,
    mapped: found?.mapped ?? [],
    warnings: warningsOf(service, redis, feed),
    serviceCalls,
  };
}

function warningsOf(service: ServiceCheck, redis: RedisCheck, feed: FeedCheck): string[] {
  const out: string[] = [];
  if (redis.warning) out.push(redis.warning);
  if (redis.pendingTotal > 0) {
    out.push(
      `${plural(redis.pendingTotal, 'job or import batch', 'jobs or import batches')} ${redis.pendingTotal === 1 ? 'is' : 'are'} ` +
        `already queued under the prefix ${redis.prefix}: the first worker or sync runs them too (see \`inventory-sync jobs list\`).`,
    );
  }
  if (!feed.configured)
    out.push('UPSTREAM_URL is not set: no feed to read, so nothing was compared with the account (imports still work).');
  const bad = feed.streams.reduce((n, s) => n + s.bad.length, 0);
  if (bad > 0)
    out.push(
      `${plural(bad, 'record')} of the first pages ${bad === 1 ? 'does' : 'do'} not match its shape: ` +
        'it would fail as a bad record (listed with the reasons); fix it upstream.',
    );
  const orphans = service.facilities?.orphans.length ?? 0;
  if (orphans > 0)
    out.push(
      `${plural(orphans, 'location')} ${orphans === 1 ? 'names a parent that is' : 'name parents that are'} ` +
        'not facilities of the account: such a location is found by its URL or its own name only.',
    );
  return out;
}

function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return '(not a URL)';
  }
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
