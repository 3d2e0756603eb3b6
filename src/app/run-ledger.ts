import type { Job } from 'bullmq';
import type { JobResult } from '../queue/job-context.js';
import type { StartWorkersOptions } from '../queue/start-workers-options.js';
import type { StreamName } from '../records/stream-name.js';

/**
 * Ids a run keeps in memory at most (about 100 MB at the worst). Past it, the records read later are counted but not
 * followed to their end, and the summary says so (`untracked`).
 */
const MAX_TRACKED = 1_000_000;

/** How a job this run's workers finished ended (a completed job's outcome, or failed for good). */
export interface WorkedJob {
  outcome: JobResult['outcome'] | 'failed';
  /** A skipped job's reason phrase (JobResult.why). */
  why?: string;
}

/** One stream's part of the ledger. */
interface StreamLedger {
  records: Set<string>;
  repeated: number;
  untracked: number;
  batches: Set<string>;
  worked: Map<string, WorkedJob>;
  /** Import batches this run's intake workers failed for good (the run's own, or ones queued before it). */
  failedBatches: Set<string>;
}

/**
 * What a one-shot run (`sync --once`, `import --process`) did, as it happens: the job id of every record it read (from
 * a feed page or a file), the import batches it wrote, and every job its own workers finished. Its summary is computed
 * from these (run-outcomes.ts), not from whatever else the queues hold or other processes did meanwhile.
 */
export class RunLedger {
  /** Epoch ms the run began: a job finished before it was finished by an earlier run. */
  readonly startedAt = Date.now();
  private readonly streams = new Map<StreamName, StreamLedger>();
  private tracked = 0;

  private of(stream: StreamName): StreamLedger {
    let s = this.streams.get(stream);
    if (!s) {
      s = { records: new Set(), repeated: 0, untracked: 0, batches: new Set(), worked: new Map(), failedBatches: new Set() };
      this.streams.set(stream, s);
    }
    return s;
  }

  /** The job ids of records the run read, in order; one already read in this run counts as repeated. */
  noteRecords(stream: StreamName, ids: readonly string[]): void {
    const s = this.of(stream);
    for (const id of ids) {
      if (s.records.has(id)) s.repeated++;
      else if (this.tracked >= MAX_TRACKED) s.untracked++;
      else {
        s.records.add(id);
        this.tracked++;
      }
    }
  }

  /** An import batch the run wrote (or found waiting with the same records): its records are jobs once it is expanded. */
  noteBatch(stream: StreamName, batchId: string): void {
    this.of(stream).batches.add(batchId);
  }

  /**
   * The pool's watchers (StartWorkersOptions.watch): every job its workers finish, told before any runs: a record's,
   * completed with its outcome or failed for good; an import batch that failed for good.
   */
  watchers(): NonNullable<StartWorkersOptions['watch']> {
    const final = (job: Job, err: Error) => err.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
    return {
      record: (worker, stream) => {
        const worked = this.of(stream).worked;
        const note = (id: string | undefined, w: WorkedJob) => {
          if (id === undefined || this.tracked >= MAX_TRACKED) return;
          if (!worked.has(id)) this.tracked++;
          worked.set(id, w);
        };
        // A record that a job of the run split off its own (a count's row, src/queue/split-records.ts) is the run's too.
        const split = (job: Job | undefined) => {
          if (job?.id && (job.data as { source?: unknown } | undefined)?.source === 'split' && !this.of(stream).records.has(job.id))
            this.noteRecords(stream, [job.id]);
        };
        worker.on('completed', (job, rv) => {
          split(job);
          const outcome = rv?.outcome ?? 'synced';
          note(job.id, { outcome, ...(outcome === 'skipped' && rv?.why ? { why: rv.why } : {}) });
        });
        worker.on('failed', (job, err) => {
          split(job);
          if (job && final(job, err)) note(job.id, { outcome: 'failed' });
        });
      },
      intake: (worker, stream) => {
        worker.on('failed', (job, err) => {
          if (job?.id && final(job, err)) this.of(stream).failedBatches.add(job.id);
        });
      },
    };
  }

  /** The streams the run noted anything of. */
  streamNames(): StreamName[] {
    return [...this.streams.keys()];
  }

  /** One stream's records, repeats, batches and the jobs its workers finished (empty when nothing was noted). */
  stream(stream: StreamName): Readonly<StreamLedger> {
    return this.of(stream);
  }
}
