/**
 * What running a Lua script through the registry costs (src/redis/scripts.ts: ioredis defineCommand, EVALSHA with EVAL
 * when the server lacks it) beside a bare EVALSHA of the same script: the budget's ACQUIRE, with limits never reached,
 * `inflight` calls at a time, rounds of the two interleaved so that a busy machine weighs on both alike.
 *
 *   npx tsx bench/once/redis-scripts.ts [calls per round, default 20000] [in flight, default 32] [rounds, default 5]
 */
import { createHash } from 'node:crypto';
import { ACQUIRE } from '../../src/client/budget/budget-scripts.js';
import { createRedis, deleteKeysUnder } from '../../src/redis/connection.js';
import { runScript } from '../../src/redis/scripts.js';
import { median } from '../lib/median.js';

const [calls = 20_000, inflight = 32, rounds = 5] = process.argv.slice(2).map(Number);
const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefix = `{bench-scripts-${Date.now()}}`;
const keys = ['tat', 'hold', 'share', 'sent'].map((k) => `${prefix}:${k}`);
const args = [5, ...keys, `${prefix}:stats`, '0.001', '1000000.000', 'get', 0];
const sha = createHash('sha1').update(ACQUIRE.lua).digest('hex');

/** Calls a second for `calls` calls, `inflight` at a time. */
async function round(call: () => Promise<unknown>): Promise<number> {
  let next = 0;
  const t0 = process.hrtime.bigint();
  const lane = async () => {
    while (next++ < calls) await call();
  };
  await Promise.all(Array.from({ length: inflight }, lane));
  return calls / (Number(process.hrtime.bigint() - t0) / 1e9);
}

async function main(): Promise<void> {
  await runScript(redis, ACQUIRE, args);
  const registry: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < rounds; i++) {
    registry.push(await round(() => runScript(redis, ACQUIRE, args)));
    bare.push(await round(() => redis.evalsha(sha, ...(args as [number, ...Array<string | number>]))));
  }
  const [r, b] = [median(registry), median(bare)];
  console.log(
    `runScript: ${Math.round(r)} calls/s; bare EVALSHA: ${Math.round(b)} calls/s; ratio ${(r / b).toFixed(2)} ` +
      `(medians of ${rounds} interleaved rounds of ${calls} calls, ${inflight} in flight)`,
  );
}

main()
  .finally(async () => {
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  })
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
