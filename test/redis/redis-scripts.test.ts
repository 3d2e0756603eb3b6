import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOnlyRedis } from '../../src/app/read-only-redis.js';
import { isCluster, type RedisConnection } from '../../src/redis/connection.js';
import { declaredScripts, runScript, type RedisScript } from '../../src/redis/scripts.js';
import { connectTarget, deletePrefix, uniquePrefix } from '../helpers/redis.js';
// Every module that declares a script, so that the registry holds them all.
import '../../src/client/budget/share-script.js';
import '../../src/client/budget/budget-scripts.js';
import '../../src/queue/hold/hold-scripts.js';
import '../../src/queue/hold/call-hold-scripts.js';
import '../../src/redis/hset-if-exists.js';
import '../../src/redis/keys-exist.js';
import '../../src/redis/progress-hash.js';
import '../../src/redis/redis-lock.js';
import '../../src/redis/fenced-write.js';
import '../../jobs/stock/count-progress.js';
import '../../src/queue/lease/lease-scripts.js';
import '../../src/feed/due-set.js';
import '../../src/ops/accounts-glance.js';
import '../../src/queue/dispatch/ready-set.js';
import '../../src/queue/dispatch/account-work.js';

/** Per script: its arguments on fresh keys under `k` (one hash tag, so one cluster slot), and what it answers there. */
const CALLS: Record<string, { args: (k: string) => Array<string | number>; answer: unknown }> = {
  // An account with no stream: its outage and held calls, both empty.
  isync_accountGlance: { args: (k) => [2, `${k}:outage`, `${k}:calls`, 0], answer: [[], []] },
  isync_dueRegister: { args: (k) => [2, `${k}:due`, `${k}:due:rule`, 'acme/orders', 1000, 'every:10000'], answer: 1 },
  // An empty due set: nothing claimed, no next time.
  isync_dueClaimDue: { args: (k) => [2, `${k}:due`, `${k}:due:rule`, Date.now(), 60_000, 10, 'acme/orders'], answer: [[], null] },
  isync_readyMark: { args: (k) => [3, `${k}:ready`, `${k}:pass`, `${k}:vt`, 'acme'], answer: 1 },
  // Nothing ready: nil.
  isync_readyClaim: { args: (k) => [4, `${k}:ready`, `${k}:lease`, `${k}:vt`, `${k}:owner`, Date.now(), 30_000, '', 'p1'], answer: null },
  isync_readyRelease: {
    args: (k) => [5, `${k}:ready`, `${k}:lease`, `${k}:pass`, `${k}:vt`, `${k}:owner`, 'acme', 1, '0', 'p1'],
    answer: 1,
  },
  // No lease held: nothing lost.
  // No lease held: lost (its turn ends).
  isync_readyRenew: { args: (k) => [2, `${k}:lease`, `${k}:owner`, Date.now() + 30_000, 'p1', 'acme'], answer: ['acme'] },
  isync_readyRecover: { args: (k) => [5, `${k}:ready`, `${k}:lease`, `${k}:pass`, `${k}:vt`, `${k}:owner`, Date.now()], answer: [] },
  // Nothing waits: nil; the account is kept (charged, leased again).
  isync_readyHead: { args: (k) => [2, `${k}:ready`, `${k}:lease`, Date.now(), '', 'acme'], answer: null },
  isync_readyKeep: {
    args: (k) => [5, `${k}:ready`, `${k}:lease`, `${k}:pass`, `${k}:vt`, `${k}:owner`, Date.now(), '', 'acme', 1, 30_000, '', 'p1'],
    answer: 1,
  },
  isync_readyWaiting: { args: (k) => [2, `${k}:ready`, `${k}:lease`, Date.now()], answer: 0 },
  // An account's queues, empty: no work, no delayed job (-1), no waiting record, no failure untold, no call held, no
  // failed job (none recent), no queue paused, no outage probe (-1), its polled feed (never polled) not behind.
  isync_accountWork: {
    args: (k) => [
      11,
      ...['wait', 'prioritized', 'active', 'meta', 'delayed'].map((t) => `${k}:orders:${t}`),
      `${k}:waiting:orders`,
      `${k}:orders:failed`,
      `${k}:alert:failed-seen:orders`,
      `${k}:outage`,
      `${k}:call-holds`,
      `${k}:feed:orders`,
      1,
      1,
      Date.now() - 3_600_000,
      1,
      new Date(Date.now() - 60_000).toISOString(),
    ],
    answer: [0, 0, -1, 0, 0, 0, 0, 0, 0, -1, 0],
  },
  isync_budgetAcquire: {
    args: (k) => [
      6,
      `${k}:tat`,
      `${k}:hold`,
      `${k}:share`,
      `${k}:sent`,
      `${k}:learnt`,
      `${k}:stats`,
      '1000.000',
      '0.000',
      'get',
      0,
      1,
      600_000,
    ],
    answer: 0,
  },
  isync_budgetHold: { args: (k) => [2, `${k}:hold`, `${k}:stats`, 1000, 'get'], answer: 1 },
  isync_budgetShare: {
    args: (k) => [
      3,
      `${k}:share`,
      `${k}:sent`,
      `${k}:learnt`,
      0,
      -1,
      -1,
      -1,
      Date.now(),
      60,
      60_000,
      0.9,
      0.1,
      0.05,
      4,
      0.5,
      600_000,
      500,
      0.02,
      0.1,
      0.000005,
      1_800_000,
      0.9,
      5_000,
    ],
    answer: ['1.0000', 'configured', 0, ''],
  },
  isync_holdCount: {
    args: (k) => [2, `${k}:breaker`, `${k}:pushbacks`, 5, Date.now(), 'CODE', 'why', 'job-1', 'count', 0, 0, 1000],
    answer: ['closed', 1, 1],
  },
  isync_holdRepeat: {
    args: (k) => [2, `${k}:breaker`, `${k}:streak`, 5, Date.now(), 'CODE', 'why', 'job-1', 'sig', 1000],
    answer: ['closed', 1],
  },
  isync_holdClear: { args: (k) => [2, `${k}:breaker`, `${k}:streak`, 'count', 'sameCount'], answer: 0 },
  isync_holdClaimProbe: { args: (k) => [1, `${k}:outage`, Date.now(), 1000], answer: 0 },
  isync_holdEndByProbe: { args: (k) => [2, `${k}:outage`, `${k}:last`, 1, Date.now(), 0, 1000], answer: 0 },
  isync_callFailed: {
    args: (k) => [1, `${k}:hold`, 'shipment-create', Date.now(), 3, '[TRANSIENT] 503', 'TRANSIENT', 2000, 30_000, ''],
    answer: ['closed', 0, 1],
  },
  isync_callGate: { args: (k) => [1, `${k}:hold`, 'shipment-create', Date.now(), 'job-1:ab', 30_000], answer: ['open', 0] },
  isync_callAnswered: { args: (k) => [1, `${k}:hold`, 'shipment-create', Date.now(), 'answered'], answer: ['none', 0, 0] },
  isync_callGiveBack: { args: (k) => [1, `${k}:hold`, 'shipment-create', 'job-1:ab'], answer: 0 },
  isync_callClaimProbe: { args: (k) => [1, `${k}:hold`, 'shipment-create', Date.now()], answer: 0 },
  isync_callsDueNow: { args: (k) => [1, `${k}:hold`, Date.now(), 2000, 'shipment-create', 'variance'], answer: 0 },
  isync_existsEach: { args: (k) => [2, `${k}:a`, `${k}:b`], answer: [0, 0] },
  isync_hsetIfExists: { args: (k) => [1, `${k}:job`, 'field', 'value'], answer: 0 },
  isync_lockRenew: { args: (k) => [1, `${k}:lock`, 'token', 1000], answer: 0 },
  isync_lockRelease: { args: (k) => [1, `${k}:lock`, 'token'], answer: 0 },
  // A lock not held: its key answered, nothing written.
  isync_fencedWrite: {
    args: (k) => [2, `${k}:lock`, `${k}:progress`, 1, 'token', JSON.stringify([['HSET', 2, 'intent:0', '1']])],
    answer: expect.stringMatching(/:lock$/),
  },
  isync_leaseTake: { args: (k) => [2, `${k}:lease`, `${k}:fence`, 'token', 'job-1', 1000, 60], answer: [1, '', '', '', ''] },
  isync_leaseRenew: { args: (k) => [1, `${k}:lease`, 'token', 1000], answer: 0 },
  isync_leaseFence: { args: (k) => [2, `${k}:lease`, `${k}:fence`, 'token', 'createShipment', Date.now(), 'job-1', 1, 30_000], answer: 0 },
  isync_leaseRelease: { args: (k) => [2, `${k}:lease`, `${k}:fence`, 'token', '1'], answer: 0 },
  isync_progressWrite: { args: (k) => [1, `${k}:progress`, '1', 60, 'step', 'created'], answer: 1 },
  isync_countRecordApplied: {
    args: (k) => [5, `${k}:count`, `${k}:v`, `${k}:meta`, `${k}:loc`, `${k}:var`, 0, '', 'fac', 'snap', 1000],
    answer: 0,
  },
};

/** Forgets every script on every server (all masters of a cluster), as a restart or SCRIPT FLUSH does. */
async function flushScripts(redis: RedisConnection): Promise<void> {
  if (!isCluster(redis)) {
    await redis.script('FLUSH');
    return;
  }
  await redis.ping();
  for (const node of redis.nodes('master')) await node.script('FLUSH');
}

const prefix = uniquePrefix('scripts');
let runs = 0;
/** Fresh keys for each run, so that each answer is the one of empty keys. */
const fresh = () => `${prefix}:${++runs}`;

describe('the Redis scripts', () => {
  let redis: RedisConnection;
  beforeAll(() => {
    redis = connectTarget();
  });
  afterAll(async () => {
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  it('are each declared once, under a name of their own', () => {
    expect(
      declaredScripts()
        .map((s) => s.command)
        .sort(),
    ).toEqual(Object.keys(CALLS).sort());
  });

  describe.each(declaredScripts().map((s): [string, RedisScript] => [s.command, s]))('%s', (command, script) => {
    const call = CALLS[command]!;
    it('answers on a fresh connection, again, and after the server forgot every script', async () => {
      const own = connectTarget();
      try {
        expect(await runScript(own, script, call.args(fresh()))).toEqual(call.answer);
        expect(await runScript(own, script, call.args(fresh()))).toEqual(call.answer);
        await flushScripts(own);
        expect(await runScript(own, script, call.args(fresh()))).toEqual(call.answer);
      } finally {
        own.disconnect();
      }
    });
    it('is refused by the dry run, even on a connection that has run it, before anything reaches Redis', async () => {
      await runScript(redis, script, call.args(fresh()));
      const k = fresh();
      expect(() => runScript(readOnlyRedis(redis), script, call.args(k))).toThrow(expect.objectContaining({ code: 'WRITE_REFUSED' }));
      expect(await redis.exists(`${k}:progress`, `${k}:hold`, `${k}:breaker`, `${k}:outage`)).toBe(0);
    });
  });
});
