import type { GoLiveRule } from '../records/stream-name.js';
import type { RecordKind } from '../records/record-kind.js';
import type { JobContext, JobResult, PreviewContext } from './job-context.js';
import type { PreviewResult } from './record-plan.js';

/** What a kind says of its job (its `job`, RunnerKind's part): what the runner, the dry run and `jobs show` read. */
export interface JobPart<R = any> {
  /** Syncs one record. */
  process(record: R, ctx: JobContext): Promise<JobResult>;
  /**
   * The dry run: what `process` would do with the record, as data, reading only (ctx's client and Redis refuse
   * writes). Throws what `process` would fail with (a BadRecordError for a bad record).
   */
  preview?(record: R, ctx: PreviewContext): Promise<PreviewResult>;
  /** The failure codes of its own (a PermanentJobError's code) with what to do about each (`jobs show`). */
  failures?: Readonly<Record<string, string>>;
  /** The record's date field the go-live floor compares with, and the setting (of its `settings`) that sets it. */
  goLive?: GoLiveRule;
}

/** A kind as the runner sees it (src/queue's slice of it): its stream, its records, its job. */
export interface RunnerKind<R = any> extends RecordKind<R> {
  job: JobPart<R>;
}
