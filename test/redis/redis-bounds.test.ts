import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyClassifier, readKeyBounds } from '../kit/key-bounds.js';
import { keyUsage } from '../kit/redis-usage.js';
import { redisKeys } from '../../src/redis/connection.js';
import { json, startServer, type TestServer } from '../client/http-server.js';
import { freshCwd, runCli } from '../cli/run-cli.js';
import { startStack, type Stack } from '../cli/stack.js';
import { eventually, startWorkerProcess } from '../cli/worker-process.js';
import { flowSamplesKey } from '../../src/ops/flow-metrics.js';
import { countRecord } from '../helpers/count-record.js';
import { keyOffenders } from '../helpers/key-offenders.js';
import { orderRecord } from '../helpers/order-records.js';
import { orderKeys } from '../../jobs/orders/order-keys.js';

const SLOW = { timeoutMs: 90_000 };
const badOrder = orderRecord('RB-3', [{ productId: 'NO-SUCH', quantity: 1, unitPrice: 1, location: 'A-01' }]);

describe('a bounded Redis', () => {
  let stack: Stack;
  let hook: TestServer;

  // Everything that writes keys: a sync of the three streams (a bad record, a retried order), an import batch, a
  // reconcile, a dry run, a check, and a worker with its schedulers, chart samples and alerts.
  beforeAll(async () => {
    stack = await startStack(
      {
        orders: [orderRecord('RB-1'), orderRecord('RB-2'), badOrder],
        'stock-counts': [
          countRecord('RBC-1', 'Main Warehouse / A-03', '2026-01-31', [
            ['SKU-0010', 5],
            ['SKU-0011', 2],
          ]),
          countRecord('RBC-2', 'A-04', '2026-01-31', [['SKU-0010', 1]]),
        ],
        boms: [{ productId: 'SKU-0100', components: [{ productId: 'SKU-0101', quantity: 2 }] }],
      },
      'redis-bounds',
    );
    hook = await startServer((_req, res) => json(res, 200, { ok: true }));
    stack.sandbox.admin.setFaults([{ kind: 'status-503', method: 'POST', path: '/api/order$', times: 1 }]);
    const sync = await runCli(['sync', '--once'], stack.env, SLOW);
    expect(sync.stdout).toContain('1 record failed in this run:');
    expect(sync.stderr).toMatch(/attempt 1 of \d+ failed: \[TRANSIENT\]/);
    const file = join(freshCwd(), 'orders.ndjson');
    writeFileSync(file, [orderRecord('RB-10'), orderRecord('RB-11')].map((r) => JSON.stringify(r)).join('\n'));
    expect((await runCli(['import', 'orders', file, '--process'], stack.env, SLOW)).code).toBe(0);
    expect((await runCli(['reconcile'], stack.env, SLOW)).code).toBe(0);
    expect((await runCli(['sync', '--once', '--dry-run'], stack.env, SLOW)).code).toBe(0);
    expect((await runCli(['check'], stack.env, SLOW)).code).toBe(0);
    // WAIT_FOR_REFERENCE_HOURS=0: a record of a product the service lacks fails at once (no wait: docs/runbooks/bad-records.md).
    const worker = startWorkerProcess({
      ...stack.env,
      WAIT_FOR_REFERENCE_HOURS: '0',
      LOG_LEVEL: 'info',
      ALERT_WEBHOOK_URL: `${hook.url}/hook`,
      ALERT_LAG_SECONDS: '1',
    });
    await worker.httpUrl;
    // Until it has alerted (its gate key) and sampled the chart: seconds on a quiet machine, more on a busy one.
    await eventually(
      async () => hook.seen.length > 0 && (await stack.redis.exists(flowSamplesKey(stack.prefix))) === 1,
      60_000,
      'an alert sent and a chart sample written',
    );
    expect((await worker.stop()).code).toBe(0);
  }, 240_000);

  afterAll(async () => {
    await hook?.close();
    await stack?.close();
  });

  it('leaves no key of the prefix without a documented bound', async () => {
    expect(await keyOffenders(stack.redis, stack.prefix)).toEqual([]);
    // The scenario reached what it is meant to check: per-record keys, jobs kept, long-lived keys.
    const classify = keyClassifier(readKeyBounds(), stack.prefix);
    const seen = new Set((await keyUsage(stack.redis, stack.prefix)).map((u) => classify(u.key)?.pattern));
    for (const p of [
      '{prefix}:order:{orderId}',
      '{prefix}:count:{countId}',
      '{prefix}:jobs-by-key:{day}',
      '{prefix}:{queue}:{jobId}',
      '{prefix}:{queue}:{jobId}:logs',
      '{prefix}:{stream}:bad-records',
      '{prefix}:stock:marks:{location}',
      '{prefix}:reconcile:last',
      '{prefix}:due',
      '{prefix}:due:rule',
      '{prefix}:alert:sent:{reason}',
      '{prefix}:flow:samples',
    ]) {
      expect(seen, p).toContain(p);
    }
  });

  describe('when a key has no bound', () => {
    it('names it: a key in no table, progress without a life, progress that lives too long', async () => {
      const keys = redisKeys(stack.prefix);
      await stack.redis.set(`${stack.prefix}:stray`, '1');
      await stack.redis.hset(orderKeys(keys).progress('RB-STRAY'), 'step', 'created');
      await stack.redis.hset(orderKeys(keys).progress('RB-LONG'), 'step', 'created');
      await stack.redis.expire(orderKeys(keys).progress('RB-LONG'), 60 * 86_400);
      try {
        expect(await keyOffenders(stack.redis, stack.prefix)).toEqual([
          `${orderKeys(keys).progress('RB-LONG')} has a TTL of 60 days, longer than the 30 days documented for {prefix}:order:{orderId}`,
          `${orderKeys(keys).progress('RB-STRAY')} has no TTL; {prefix}:order:{orderId} is documented to live 30 days`,
          `${stack.prefix}:stray (string, no TTL) is in no table of docs/redis.md "Redis sizing"`,
        ]);
      } finally {
        await stack.redis.del(`${stack.prefix}:stray`, orderKeys(keys).progress('RB-STRAY'), orderKeys(keys).progress('RB-LONG'));
      }
    });
  });
});
