import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../../config/read-config.js';
import { programKinds } from '../../../jobs/kinds.js';
import { buildDeps, type AppDeps } from '../../../src/app/build-deps.js';
import { syncOnce } from '../../../src/app/runtime.js';
import { startFeedServer, type FeedServer } from '../../../src/feed/feed-server.js';
import { findRecord } from '../../../src/ops/find.js';
import { openStreamQueues } from '../../../src/queue/stream-queues.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/sandbox.js';
import { deletePrefix, redisUrl, uniquePrefix } from '../../helpers/redis.js';
import { captureLogger, settleMeta } from '../../queue/support.js';
import { shelfLabelKind } from './shelf-label-kind.js';

/** The program's list plus one line: all a fourth kind needs besides its folder. */
const kinds = [...programKinds, shelfLabelKind];

let sandbox: Sandbox;
let feed: FeedServer;
let deps: AppDeps;

beforeAll(async () => {
  sandbox = await startSandbox({ data: 'demo' });
  feed = await startFeedServer({
    names: kinds.map((k) => k.stream),
    streams: {
      'shelf-labels': [
        { labelId: 'L-1', productId: 'MUG-BLUE', text: 'Blue mug, 12.50' },
        { labelId: 'L-2', productId: 'NO-SUCH', text: '?' },
      ],
    },
  });
  const config = readConfig({
    INVENTORY_BASE_URL: sandbox.url,
    INVENTORY_ACCOUNT: sandbox.account,
    INVENTORY_API_KEY: sandbox.key,
    INVENTORY_API_SECRET: sandbox.secret,
    REDIS_URL: redisUrl(),
    QUEUE_PREFIX: uniquePrefix('fourth'),
    UPSTREAM_URL: feed.url,
  });
  deps = buildDeps(config, captureLogger().logger, { kinds });
  await settleMeta(deps.queues);
});
afterAll(async () => {
  await deletePrefix(deps.redis, deps.config.redis.prefix);
  await deps.close();
  await feed.close();
  await sandbox.close();
});

describe('a fourth kind of job', () => {
  describe('when its folder and its line in the list are handed to the engine', () => {
    it('is pulled from the feed, processed by real workers and found by find', async () => {
      const summary = await syncOnce(deps, { kinds: [shelfLabelKind], streams: ['shelf-labels'], pollMs: 50 });
      expect(summary.perStream['shelf-labels']).toMatchObject({ queued: 2, completed: 1 });
      expect(summary.perStream['shelf-labels']?.failed.map((f) => f.key)).toEqual(['L-2']);

      const queues = openStreamQueues(deps.redis, deps.config.redis.prefix, kinds);
      try {
        const found = await findRecord(deps.redis, queues, 'L-1', undefined, { kinds });
        expect(found.jobs.map((j) => [j.stream, j.state, j.key])).toEqual([['shelf-labels', 'completed', 'L-1']]);
        expect(found.entities).toEqual([{ kind: 'label product', url: expect.stringMatching(/\/product\//), source: found.jobs[0]!.id }]);
      } finally {
        await queues.close();
      }
    });
  });
});
