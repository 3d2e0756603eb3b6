/** The chaos run's rule for its poison records (bench/chaos/poison.ts plants them). */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { jobIdFor } from '../../src/queue/job-id.js';
import { programKinds } from '../../jobs/kinds.js';
import { kindOf } from '../../src/records/records.js';
import { check, type CheckResult } from './check-types.js';
import { isRaw } from './poison.js';
import type { Scenario } from './scenario.js';

/** The rule: each poison record failed at once as BAD_RECORD naming its key and reason, and its neighbours in the feed completed. */
export async function checkPoison(redis: Redis, prefix: string, scenario: Scenario): Promise<CheckResult> {
  const violations: string[] = [];
  const poisoned = scenario.bad.filter((b) => b.poison);
  for (const b of poisoned) {
    const q = new Queue(b.stream, { connection: redis, prefix });
    try {
      const job = await q.getJob(b.jobId!);
      const state = job ? await job.getState() : 'missing';
      const reason = job?.failedReason ?? '';
      if (state !== 'failed') violations.push(`${b.stream} poison ${b.key} (${b.poison}): job ${b.jobId} is ${state}, expected failed`);
      else if (!reason.startsWith('[BAD_RECORD]') || !reason.includes(b.key) || !reason.includes(b.poison!)) {
        violations.push(
          `${b.stream} poison ${b.key}: failedReason "${reason.slice(0, 200)}" is not [BAD_RECORD] naming ${b.key} and "${b.poison}"`,
        );
      } else if ((job!.attemptsMade ?? 0) > 1)
        violations.push(`${b.stream} poison ${b.key}: tried ${job!.attemptsMade} times (must fail at once)`);
      // Alone: the good records delivered just before and after it were synced.
      const feed = scenario.feed[b.stream];
      const at = feed.findIndex((r) => isRaw(r) && isRaw(b.record) && Buffer.compare(Buffer.from(r), Buffer.from(b.record)) === 0);
      for (const near of [feed[at - 1], feed[at + 1]]) {
        if (near === undefined || isRaw(near)) continue;
        const nearId = jobIdFor(kindOf(programKinds, b.stream), near);
        if (
          scenario.bad.some(
            (x) => x.jobId === nearId || (!isRaw(x.record) && jobIdFor(kindOf(programKinds, x.stream), x.record) === nearId),
          )
        )
          continue;
        const nearState = await q.getJobState(nearId);
        if (nearState !== 'completed')
          violations.push(`${b.stream} poison ${b.key}: the record next to it (job ${nearId}) is ${nearState}, expected completed`);
      }
    } finally {
      await q.close();
    }
  }
  return check(
    'each poison record (too deep, too large, not UTF-8) failed alone, at once, as BAD_RECORD with its reason',
    poisoned.length,
    violations,
  );
}
