import type { DryRunSource } from './dry-run-records.js';
import { dryRun } from './dry-run.js';
import type { RecordPlan } from '../queue/record-plan.js';
import { rerunJob, newestVersions, runId, type UnusableVersion } from '../ops/rerun-jobs.js';
import { kindOf } from '../records/records.js';
import type { StreamName } from '../records/stream-name.js';
import type { RecordJob } from '../queue/record-jobs.js';
import type { AppDeps } from './build-deps.js';
import { runRecordJobs } from './run-jobs.js';
import type { JobEnd } from '../ops/repair-report.js';

/** One key asked for: the version sent again (its stream and the job it came from), or none found. */
export interface ResyncTarget {
  key: string;
  stream?: StreamName;
  /** The job whose record is sent again (the newest version recorded). */
  from?: string;
  /** The resync job. */
  jobId?: string;
}

export interface ResyncReport {
  run: string;
  dryRun: boolean;
  targets: ResyncTarget[];
  /** Keys of which no job is kept (jobs are kept 7 days; failed ones until removed). */
  notFound: string[];
  /** Keys known only by kept jobs whose record cannot be sent again (unreadable, or not of its shape): fixed at the source. */
  unusable: UnusableVersion[];
  plans: RecordPlan[];
  jobs: JobEnd[];
  /** Every key found, and every job completed (or, in a dry run, would not fail). */
  ok: boolean;
}

/**
 * `resync <key>...`: the newest recorded version of each key through its job again, planned from the service's state
 * (read, then write only what is missing): a record in order writes nothing. Over a dry run's parts (`d.dryRun`) the
 * same jobs are previewed instead.
 */
export async function resyncKeys(
  d: AppDeps,
  keys: readonly string[],
  o: { streams?: readonly StreamName[]; signal?: AbortSignal } = {},
): Promise<ResyncReport> {
  const run = runId();
  const kinds = d.kinds.filter((k) => !o.streams || o.streams.includes(k.stream));
  const targets: ResyncTarget[] = [];
  const notFound: string[] = [];
  const unusable: UnusableVersion[] = [];
  const jobs: RecordJob[] = [];
  for (const key of new Set(keys)) {
    const found = await newestVersions(d.redis, d.keys.prefix, d.queues, kinds, key);
    const versions = found.versions;
    if (!versions.length) unusable.push(...found.unusable);
    if (!versions.length && !found.unusable.length) notFound.push(key);
    for (const v of versions) {
      const job = rerunJob(kindOf(d.kinds, v.stream), v.record, { reason: 'resync', run });
      jobs.push(job);
      targets.push({ key, stream: v.stream, from: v.jobId, jobId: job.opts.jobId });
    }
  }
  if (d.dryRun) {
    const sources: DryRunSource[] = [...new Set(jobs.map((j) => j.name))].map((stream) => ({
      stream,
      from: 'jobs',
      jobs: jobs.filter((j) => j.name === stream),
    }));
    const dry = await dryRun(
      { client: d.client, catalog: d.catalog, redis: d.redis, keys: d.keys, logger: d.logger, jobs: d.config.jobs, maxRecordBytes: 0 },
      { kinds: [...d.kinds], sources, signal: o.signal },
    );
    const ok = notFound.length === 0 && unusable.length === 0 && dry.ok;
    return { run, dryRun: true, targets, notFound, unusable, plans: dry.records, jobs: [], ok };
  }
  const ends = await runRecordJobs(d, jobs, { kinds: d.kinds, signal: o.signal });
  const ok = notFound.length === 0 && unusable.length === 0 && ends.every((e) => e.state === 'completed');
  return { run, dryRun: false, targets, notFound, unusable, plans: [], jobs: ends, ok };
}
