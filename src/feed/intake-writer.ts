import { markWork } from '../queue/dispatch/work-mark.js';
import type { Queue } from 'bullmq';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { keysExist } from '../redis/keys-exist.js';
import { intakeJobId, type IntakeData, type IntakeItem } from '../queue/intake-queue.js';
import type { JobData } from '../queue/queues.js';
import type { StreamName } from '../records/stream-name.js';

/** An import's counts as it goes (importer.ts). */
export interface ImportProgress {
  /** Lines read so far (blank ones included). */
  lines: number;
  records: number;
  queued: number;
  /** Records not queued: their job existed before the import, or they came earlier in the same file (`repeated`). */
  duplicates: number;
  /** Of the duplicates, those the same file held earlier. */
  repeated: number;
  /** Records that do not match their shape, plus lines that are not JSON. Queued to fail at once. */
  invalid: number;
  /** Intake batches written (each becomes its records' jobs when a worker takes it). */
  batches: number;
}

/**
 * Ids remembered across the batches of one import, so a record repeated in the file counts once. Past this many
 * the memory is let go (a repeat further apart is then counted as queued, and is still a no-op at the queue).
 */
const MAX_REMEMBERED_IDS = 500_000;

export interface IntakeWriterOptions {
  stream: StreamName;
  recordQueue: Queue<JobData>;
  intake: Queue<IntakeData>;
  redis: Redis;
  /** Records per batch. */
  batchSize: number;
  /** A batch is also closed once its records' text reaches this many characters. */
  batchChars: number;
  /** Batches being written at once; `add` waits when this many are in flight (backpressure). */
  maxInFlight: number;
  /** The import's counts, updated as batches are written. */
  totals: ImportProgress;
  onProgress?: (p: ImportProgress) => void;
  /** Told the job id of every item (repeats and records queued before too), and of every batch that holds new ones: a run's ledger. */
  onRecords?: (ids: readonly string[]) => void;
  onBatch?: (batchId: string) => void;
}

/**
 * Writes an import's items as intake batches (see src/queue/intake.ts). Batches are written one after another (so
 * duplicate counts stay exact) while the next ones are read and checked; waiting once maxInFlight are pending
 * keeps memory bounded. A repeat within the import, or an item whose job exists already, counts as a duplicate.
 */
export class IntakeWriter {
  private batch: IntakeItem[] = [];
  private chars = 0;
  private readonly seen = new Set<string>();
  private readonly pending: Array<Promise<void>> = [];
  private chain: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | undefined;

  constructor(private readonly o: IntakeWriterOptions) {}

  /** Adds an item (of `chars` characters) to the batch; writes the batch once it is full. */
  async add(item: IntakeItem, chars: number): Promise<void> {
    this.batch.push(item);
    this.chars += chars;
    if (this.batch.length >= this.o.batchSize || this.chars >= this.o.batchChars) await this.flush();
  }

  /** Writes what is left and waits for every batch. */
  async close(): Promise<void> {
    await this.flush();
    await Promise.all(this.pending);
  }

  private async flush(): Promise<void> {
    if (this.failure) throw this.failure.error;
    if (this.batch.length === 0) return;
    const items = this.batch;
    this.batch = [];
    this.chars = 0;
    const written = this.chain.then(() => this.write(items));
    // Handled here so a failure is never an unhandled rejection; it is thrown by the next await of it.
    this.chain = written.catch((error: unknown) => void (this.failure ??= { error }));
    this.pending.push(written);
    if (this.pending.length >= this.o.maxInFlight) await this.pending.shift();
  }

  /** Leaves out repeats and items whose job exists, then writes the rest as one intake job. */
  private async write(items: IntakeItem[]): Promise<void> {
    this.o.onRecords?.(items.map((i) => i.id));
    const fresh: IntakeItem[] = [];
    for (const item of items) {
      if (this.seen.has(item.id)) continue;
      this.seen.add(item.id);
      fresh.push(item);
    }
    if (this.seen.size > MAX_REMEMBERED_IDS) this.seen.clear();
    const exists = await keysExist(
      this.o.redis,
      fresh.map((i) => this.o.recordQueue.toKey(i.id)),
    );
    const todo = fresh.filter((_, i) => !exists[i]);
    const queued = todo.length ? await this.writeBatch(todo) : 0;
    const t = this.o.totals;
    t.queued += queued;
    t.duplicates += items.length - queued;
    t.repeated += items.length - fresh.length;
    const { lines, records, duplicates, repeated, invalid, batches } = t;
    this.o.onProgress?.({ lines, records, queued: t.queued, duplicates, repeated, invalid, batches });
  }

  /** One intake job of new items; how many it queued (none when the same batch is queued already). */
  private async writeBatch(todo: IntakeItem[]): Promise<number> {
    const { intake, stream } = this.o;
    const jobId = intakeJobId(stream, todo);
    this.o.onBatch?.(jobId);
    // The same batch written before and not yet expanded: its records are queued already. If it failed (Redis
    // failed it on every attempt), importing again puts it back to work.
    const [already] = await keysExist(this.o.redis, [intake.toKey(jobId)]);
    if (already) {
      const state = await intake.getJobState(jobId);
      if (state !== 'failed') return 0;
      await (await intake.getJob(jobId))?.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      markWork(intake);
      return todo.length;
    }
    const data: IntakeData = { stream, source: 'import', firstLine: todo[0]!.line ?? 0, lastLine: todo.at(-1)!.line ?? 0, items: todo };
    await intake.add(stream, data, { jobId });
    this.o.totals.batches++;
    return todo.length;
  }
}
