import type { StartControlOptions } from '../../src/feed/control.js';
import type { FeedServer } from '../../src/feed/feed-server.js';
import { UpstreamClient } from '../../src/feed/upstream-client.js';
import type { QueueWorld } from '../queue/support.js';

/** A control's options on a test's prefix, pulling from its feed server; the test adds the kinds and the schedule. */
export function feedControlOptions(w: QueueWorld, feed: FeedServer): Omit<StartControlOptions, 'kinds' | 'schedule'> {
  return {
    prefix: w.prefix,
    redis: w.redis,
    keys: w.keys,
    upstream: new UpstreamClient({ url: feed.url, token: 'feed-token', retries: 0 }),
    queues: w.queues,
    pageSize: 50,
    logger: w.logger,
  };
}
