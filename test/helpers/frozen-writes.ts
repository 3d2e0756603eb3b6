import type { ChildProcess } from 'node:child_process';
import { Queue } from 'bullmq';
import { readFileSync } from 'node:fs';
import type { FreezePoint } from '../../src/client/layers/freeze-hook.js';
import type { StreamName } from '../../src/records/stream-name.js';
import { redisKeys } from '../../src/redis/connection.js';
import { parseTrace } from '../../src/queue/job-trace.js';
import { fenceNotes } from '../../src/queue/lease/lease-words.js';
import { testWorld, type TestWorld, type TestWorldOptions } from './test-world.js';

/** Every point of the write path a worker is frozen at (src/client/layers/freeze-hook.ts). */
export const FREEZE_POINTS: readonly FreezePoint[] = ['before-check', 'after-check', 'in-flight', 'after-answer'];

/** The lock's life of the worker fixtures, ms: the frozen worker stays stopped well past it. */
export const LOCK_MS = 1_500;

/** The test hook's env: the worker stops itself at `point` of its first `call`. */
export const freezeEnv = (point: FreezePoint, call: string) => ({ ISYNC_TEST_FREEZE_AT: point, ISYNC_TEST_FREEZE_CALL: call });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether a process is stopped (SIGSTOP): its state in /proc is T. */
function stopped(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('T') ?? false;
  } catch {
    return false;
  }
}

async function until(check: () => Promise<boolean> | boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** What one frozen run left: the job's state and reason, and how long the frozen worker stayed stopped. */
export interface FrozenRun {
  /** The fence's notes in the job's attempt traces (`jobs show`, `find`). */
  notes: string[];
  states: string[];
  failedReasons: string[];
  frozenMs: number;
}

/**
 * One run of a frozen worker: a worker that stops itself (SIGSTOP) at `point` of its first `call` is started and
 * the record added; once it is stopped, a second worker, which takes the job over once the lock's life is gone; the
 * first is thawed (SIGCONT) as soon as the second took the job, while the second's writes are still to come (the
 * sandbox's latency makes them slow), and both run until the job ends: a zombie's write would land beside them.
 */
export async function frozenRun(
  world: TestWorld,
  o: {
    stream: StreamName;
    start: (env: Record<string, string>) => Promise<ChildProcess>;
    record: unknown;
    /** The record's business key. */
    key: string;
    call: string;
    point: FreezePoint;
  },
): Promise<FrozenRun> {
  const children: ChildProcess[] = [];
  try {
    const frozen = await o.start(freezeEnv(o.point, o.call));
    children.push(frozen);
    await world.add(o.stream, [o.record]);
    await until(() => stopped(frozen.pid!), 20_000, `the worker frozen ${o.point} ${o.call}`);
    const since = Date.now();
    children.push(await o.start({}));
    // Thawed as soon as the other took the job over (its lease's version is the second), while its writes are to come.
    const fence = redisKeys(world.prefix).fence(o.stream, o.key);
    await until(async () => Number(await world.redis.hget(fence, 'version')) >= 2, 20_000, 'the job taken over');
    // Frozen past the lock's life twice over, then thawed while the other's writes are still to come.
    await sleep(Math.max(100, since + 2 * LOCK_MS + 20 - Date.now()));
    const frozenMs = Date.now() - since;
    frozen.kill('SIGCONT');
    await sleep(2 * LOCK_MS);
    await world.idle(30_000);
    const jobs = await world.jobs(o.stream);
    const queue = new Queue(o.stream, { connection: world.redis, prefix: world.prefix });
    const logs = await Promise.all(jobs.map(async (j) => (await queue.getJobLogs(j.id!)).logs));
    await queue.close();
    return {
      notes: parseTrace(logs.flat()).attempts.flatMap((a) => fenceNotes(a.notes)),
      states: await Promise.all(jobs.map((j) => j.getState())),
      failedReasons: jobs.flatMap((j) => (j.failedReason ? [j.failedReason] : [])),
      frozenMs,
    };
  } finally {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
}

/**
 * `run` at each freeze point in a world of its own (its sandbox, Redis prefix and workers), the points side by side:
 * each waits on the lock's life, not on the CPU. `worlds` gets each point's world, for the tests to read and close.
 */
export async function eachPointApart(
  worlds: Map<string, TestWorld>,
  name: string,
  o: TestWorldOptions,
  run: (world: TestWorld, point: FreezePoint, i: number) => Promise<void>,
): Promise<void> {
  await Promise.all(
    FREEZE_POINTS.map(async (point, i) => {
      const world = await testWorld(`${name}-${point}`, o);
      worlds.set(point, world);
      await run(world, point, i);
    }),
  );
}
