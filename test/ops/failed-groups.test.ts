import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { failedGroups } from '../../src/ops/failed-groups.js';
import { retryAllFailed } from '../../src/ops/job-retry.js';
import { waitForIdle } from '../../src/queue/drain.js';
import { FAILURE_GROUP_FIELD, FAILURE_GROUP_FOR_FIELD, failedReasonHash } from '../../src/queue/failure-group.js';
import { jobIdFor } from '../../src/queue/job-id.js';
import { addJobs, recordJob } from '../../src/queue/record-jobs.js';
import { openStreamQueues, type StreamQueues } from '../../src/queue/stream-queues.js';
import { done, order, queueWorld, testKind, type QueueWorld } from '../queue/support.js';
import { orderKind } from '../../jobs/orders/order-kind.js';
import { programKinds } from '../../jobs/kinds.js';

let w: QueueWorld;
let queues: StreamQueues;

beforeEach(async () => {
  w = await queueWorld('failed-groups');
  queues = openStreamQueues(w.redis, w.prefix, programKinds);
});
afterEach(async () => {
  await queues.close();
  await w.close();
});

/** Orders with no lines, failed by the real runner as bad records; their job ids. */
async function failBadOrders(...orderIds: string[]): Promise<string[]> {
  const records = orderIds.map((id) => ({ ...order(id), lines: [] }));
  await addJobs(
    w.queues.get('orders'),
    w.redis,
    records.map((r) => recordJob(orderKind, r, 'feed').job),
    orderKind,
  );
  const pool = await w.startPool([testKind('orders', async () => done())]);
  await waitForIdle([w.queues.get('orders')], { pollMs: 25 });
  await pool.close(1_000);
  return records.map((r) => jobIdFor(orderKind, r));
}

const jobKey = (id: string) => w.queues.get('orders').toKey(id);

describe('failure groups', () => {
  describe('when bad records whose keys contain colons fail for one cause', () => {
    it('puts them in one group by code and field, and retries that group', async () => {
      const ids = await failBadOrders('SHOP:EU:1', 'SHOP:EU:22');
      const failed = await w.queues.get('orders').getJob(ids[0]!);
      expect(failed?.failedReason).toMatch(/^\[BAD_RECORD\] record SHOP:EU:1: lines: /);

      const groups = await failedGroups(queues);
      expect(groups).toEqual([
        {
          stream: 'orders',
          code: 'BAD_RECORD',
          reason: expect.stringMatching(/^lines: /),
          count: 2,
          examples: expect.arrayContaining(ids),
          batch: false,
          // A record wrong in itself: no retry can help, so the dashboard offers none (the API still retries it).
          retryHelps: false,
        },
      ]);

      const out = await retryAllFailed(queues, { group: { code: 'BAD_RECORD', reason: groups[0]!.reason } });
      expect(out.retried.map((r) => r.id).sort()).toEqual([...ids].sort());
      expect(out.refused).toEqual([]);
    });
  });

  describe('when a failed job has no group recorded beside its reason (failed before groups were recorded)', () => {
    it('groups it by its code and its whole message', async () => {
      const [oldId, newId] = await failBadOrders('SHOP:EU:1', 'SHOP:EU:22');
      await w.redis.hdel(jobKey(oldId!), FAILURE_GROUP_FIELD);

      const groups = await failedGroups(queues);
      expect(groups).toHaveLength(2);
      const old = groups.find((g) => g.examples.includes(oldId!));
      expect(old).toMatchObject({ code: 'BAD_RECORD', reason: expect.stringMatching(/^record SHOP:EU:1: lines: /), count: 1 });
      expect(groups.find((g) => g.examples.includes(newId!))?.reason).toMatch(/^lines: /);
    });

    it('does the same when the group recorded is not of its last failure', async () => {
      const [id] = await failBadOrders('SHOP:EU:1');
      // As an earlier attempt's failure left it: its group, written for its own reason.
      await w.redis.hset(jobKey(id!), FAILURE_GROUP_FIELD, 'connection reset');
      await w.redis.hset(jobKey(id!), FAILURE_GROUP_FOR_FIELD, failedReasonHash('[TRANSIENT] GET /demo/api/product connection reset'));

      expect(await failedGroups(queues)).toEqual([
        {
          stream: 'orders',
          code: 'BAD_RECORD',
          reason: expect.stringMatching(/^record SHOP:EU:1: lines: /),
          count: 1,
          examples: [id],
          batch: false,
          // What was recorded is another failure's: nothing is known of this one's, so a retry is offered.
          retryHelps: true,
        },
      ]);
    });
  });
});
