import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { STREAMS } from '../../jobs/kinds.js';
import type { StreamName } from '../../src/records/stream-name.js';
import { checkIntake } from './check-intake.js';
import { check, type CheckResult } from './check-types.js';
import { checkPoison } from './check-poison.js';
import { feedJobId } from './poison.js';
import { badJobId, deliveredRecords, type Scenario } from './scenario.js';

/**
 * Job ids the records of the feed and of the import must have become: good ones and bad ones (with the field each
 * must name). A record delivered by both routes is one job.
 */
export function expectedJobs(scenario: Scenario): Map<StreamName, { good: Set<string>; bad: Map<string, string> }> {
  const out = new Map<StreamName, { good: Set<string>; bad: Map<string, string> }>();
  for (const stream of STREAMS) {
    const bad = new Map(scenario.bad.filter((b) => b.stream === stream).map((b) => [badJobId(b), b.field]));
    const good = new Set(
      deliveredRecords(scenario, stream)
        .map((r) => feedJobId(stream, r, scenario.bad))
        .filter((id) => !bad.has(id)),
    );
    out.set(stream, { good, bad });
  }
  return out;
}

/** States that mean "not finished". */
export const UNFINISHED = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'] as const;

/**
 * Per stream: how many expected jobs are finished, and how many jobs are unfinished; batches still to expand on the
 * intake queues count as unfinished (their records are no jobs yet).
 */
export async function drainProgress(
  queues: Map<StreamName, Queue>,
  intakes: Map<StreamName, Queue>,
  expected: ReturnType<typeof expectedJobs>,
) {
  let finished = 0;
  let total = 0;
  let unfinished = 0;
  for (const [stream, q] of queues) {
    const e = expected.get(stream)!;
    total += e.good.size + e.bad.size;
    const counts = await q.getJobCounts('completed', 'failed', ...UNFINISHED);
    finished += (counts.completed ?? 0) + (counts.failed ?? 0);
    unfinished += UNFINISHED.reduce((n, s) => n + (counts[s] ?? 0), 0);
  }
  for (const q of intakes.values()) {
    const counts = await q.getJobCounts(...UNFINISHED);
    unfinished += UNFINISHED.reduce((n, s) => n + (counts[s] ?? 0), 0);
  }
  return { finished, total, unfinished };
}

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A field as a failure may name it: lines.0.productId, lines[0].productId, `line 12`; as a whole word, so that
 * `line 1` is not found in `line 12`.
 */
export function namesField(reason: string, field: string): boolean {
  const bracketed = field.replace(/\.(\d+)(?=\.|$)/g, '[$1]');
  return [field, bracketed].some((f) => new RegExp(`(?<![\\w.\\[])${escaped(f)}(?![\\w\\[])`).test(reason));
}

/** Every queue rule: good jobs completed once, bad ones failed naming their field, nothing left over (intake too). */
export async function checkQueues(
  redis: Redis,
  prefix: string,
  scenario: Scenario,
  /** Spans (epoch ms) while Redis refused writes: a bad record's attempt there fails as a Redis failure and is retried. */
  redisRefused: Array<[number, number]> = [],
): Promise<CheckResult[]> {
  const duringRefusal = (from: number, to: number) => redisRefused.some(([a, b]) => from <= b && to >= a);
  const expected = expectedJobs(scenario);
  const goodV: string[] = [];
  const badV: string[] = [];
  const leftV: string[] = [];
  const strayV: string[] = [];
  let goodN = 0;
  let badN = 0;
  let leftN = 0;
  let jobsN = 0;
  for (const stream of STREAMS) {
    const q = new Queue(stream, { connection: redis, prefix });
    try {
      const e = expected.get(stream)!;
      const completed = new Map((await q.getJobs(['completed'], 0, -1)).map((j) => [String(j.id), j]));
      const failed = new Map((await q.getJobs(['failed'], 0, -1)).map((j) => [String(j.id), j]));
      const counts = await q.getJobCounts(...UNFINISHED);
      for (const s of UNFINISHED) {
        leftN++;
        if ((counts[s] ?? 0) > 0) {
          const ids = (await q.getJobs([s], 0, 9)).map((j) => j.id).join(', ');
          leftV.push(`${stream}: ${counts[s]} job(s) ${s} at the end (${ids})`);
        }
      }
      for (const id of e.good) {
        goodN++;
        const done = completed.get(id);
        if (done) {
          const outcome = (done.returnvalue as { outcome?: string } | undefined)?.outcome;
          if (!outcome || !['synced', 'unchanged', 'skipped'].includes(outcome))
            goodV.push(`${stream} job ${id}: completed without a JobResult outcome`);
          continue;
        }
        const f = failed.get(id);
        goodV.push(
          f
            ? `${stream} job ${id} (a good record) failed: ${f.failedReason}`
            : `${stream} job ${id} (a good record) is not completed (${await q.getJobState(id)})`,
        );
      }
      for (const [id, field] of e.bad) {
        badN++;
        const f = failed.get(id);
        if (!f) {
          badV.push(
            `${stream} job ${id} (bad at ${field}) is ${completed.has(id) ? 'completed' : await q.getJobState(id)}, expected failed`,
          );
          continue;
        }
        const reason = f.failedReason ?? '';
        if (!reason.startsWith('[BAD_RECORD]')) badV.push(`${stream} job ${id}: failedReason "${reason}" is not [BAD_RECORD]`);
        else if (!namesField(reason, field)) badV.push(`${stream} job ${id}: failedReason "${reason}" does not name the field ${field}`);
        if ((f.attemptsMade ?? 0) > 1 && !duringRefusal(f.timestamp, f.finishedOn ?? Date.now()))
          badV.push(`${stream} job ${id}: a bad record was tried ${f.attemptsMade} times (must fail at once)`);
      }
      for (const id of [...completed.keys(), ...failed.keys()]) {
        jobsN++;
        if (!e.good.has(id) && !e.bad.has(id)) strayV.push(`${stream} job ${id}: no record of the feed or the import has this id`);
      }
    } finally {
      await q.close();
    }
  }
  return [
    check('each good record: its one job completed (re-deliveries were no-ops)', goodN, goodV),
    check('each bad record: failed at once, [BAD_RECORD] naming its field', badN, badV),
    check('no job waiting, active, delayed or prioritized at the end', leftN, leftV),
    check("no job but the records' own (one per distinct record)", jobsN, strayV),
    await checkPoison(redis, prefix, scenario),
    await checkIntake(redis, prefix),
  ];
}

/** Lock keys left under the prefix: the program's (`{prefix}:lock:*`) and BullMQ's job locks (`*:lock`). */
export async function lockKeys(redis: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  for (const pattern of [`${prefix}:lock:*`, `${prefix}:*:lock`]) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0');
  }
  return [...new Set(found)];
}

/** Waits up to waitMs for lock keys to go (a SIGKILLed holder's lock lives until its TTL); checks what is left. */
export async function checkLocks(redis: Redis, prefix: string, waitMs: number): Promise<CheckResult> {
  const until = Date.now() + waitMs;
  let keys = await lockKeys(redis, prefix);
  while (keys.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 1000));
    keys = await lockKeys(redis, prefix);
  }
  const withTtl = await Promise.all(keys.map(async (k) => `${k} (ttl ${await redis.pttl(k)} ms)`));
  return check(
    `no lock key left (after up to ${Math.round(waitMs / 1000)} s for TTLs)`,
    1,
    withTtl.map((k) => `lock left: ${k}`),
  );
}
