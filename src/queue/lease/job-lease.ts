import { randomBytes } from 'node:crypto';
import type { RedisConnection as Redis, RedisKeys } from '../../redis/connection.js';
import { runScript } from '../../redis/scripts.js';
import { LEASE_FENCE, LEASE_RELEASE, LEASE_RENEW, LEASE_TAKE } from './lease-scripts.js';
import { LeaseLostError } from './lease-lost.js';

/** How long a record's fence (its lease counter and last intent) is kept after its last take, in seconds. */
export const FENCE_TTL_SECONDS = 7 * 24 * 3600;

/** The intent of a write a previous execution fenced and did not see through (it froze, crashed or lost its lease). */
export interface FoundIntent {
  /** The call (a row of src/client/service-calls.ts: createShipment). */
  call: string;
  /** When it was fenced, ms since the epoch. */
  at: number;
  /** The job of the execution that fenced it. */
  jobId: string;
}

/** Where a lease is and for how long. */
export interface LeaseOptions {
  stream: string;
  /** The record's business key. */
  key: string;
  jobId: string;
  /** The lock's life, ms (JOB_LOCK_SECONDS: BullMQ's job lock has the same); renewed every third of it. */
  ttlMs: number;
}

/**
 * One execution's lease on its record (src/queue/lease/): a random token and a version, for the lock's life, renewed
 * while the execution runs. A job taken again takes a new lease, and the old execution's token is no longer current:
 * its next fenced write throws LeaseLostError before it leaves.
 */
export class JobLease {
  private held = true;
  private confirmedAt: number;
  private readonly timer: NodeJS.Timeout;
  /** When the last fence answered this execution's, ms (a fence older than a third of the life is made again). */
  private fencedAt = 0;

  constructor(
    private readonly redis: Redis,
    private readonly keys: { lease: string; fence: string },
    private readonly o: LeaseOptions,
    readonly token: string,
    readonly version: number,
    /** What a previous execution left in flight, found when this lease was taken. */
    readonly found: FoundIntent | undefined,
    /** When the take was sent, ms: the lease is known this execution's as of then, not as of its answer. */
    takenAt: number,
  ) {
    this.confirmedAt = takenAt;
    this.timer = setInterval(() => void this.renew(), Math.max(10, Math.floor(o.ttlMs / 3)));
    this.timer.unref();
  }

  get key(): string {
    return this.o.key;
  }

  /** The bound between a fence and the request leaving: a third of the lock's life. */
  get boundMs(): number {
    return Math.floor(this.o.ttlMs / 3);
  }

  private async renew(): Promise<void> {
    const sentAt = Date.now();
    try {
      if ((await runScript(this.redis, LEASE_RENEW, [1, this.keys.lease, this.token, this.o.ttlMs])) !== 1) this.held = false;
      else if (this.held) this.confirmedAt = sentAt;
    } catch {
      // Tried again at the next tick; the fence and the lease's life are the safety.
    }
  }

  /** Throws LeaseLostError when the lease is known lost, or not confirmed within its life (no Redis round trip). */
  assertHeld(): void {
    if (!this.held || Date.now() - this.confirmedAt >= this.o.ttlMs) throw new LeaseLostError(this.o.key);
  }

  /**
   * The fence before a write (one round trip): while the token is the lease's, the write's intent is recorded;
   * otherwise LeaseLostError, and nothing is recorded.
   */
  async fence(call: string): Promise<void> {
    this.assertHeld();
    const sentAt = Date.now();
    const args = [2, this.keys.lease, this.keys.fence, this.token, call, sentAt, this.o.jobId, this.version, this.o.ttlMs];
    if ((await runScript(this.redis, LEASE_FENCE, args)) !== 1) {
      this.held = false;
      throw new LeaseLostError(this.o.key, call);
    }
    this.fencedAt = sentAt;
    this.confirmedAt = Math.max(this.confirmedAt, sentAt);
  }

  /** Right before the request leaves: the fence made again when the last one is older than the bound. */
  async refence(call: string): Promise<void> {
    if (Date.now() - this.fencedAt > this.boundMs) await this.fence(call);
  }

  /** Ends the lease; `clearIntent` when the execution ran to its end (its writes' outcomes are in the progress). */
  async release(clearIntent: boolean): Promise<void> {
    clearInterval(this.timer);
    if (!this.held) return;
    this.held = false;
    await runScript(this.redis, LEASE_RELEASE, [2, this.keys.lease, this.keys.fence, this.token, clearIntent ? '1' : '0']).catch(
      () => undefined,
    );
  }
}

/** Takes a lease for one execution; undefined while another job holds the record's (a busy key). */
export async function takeLease(redis: Redis, keys: RedisKeys, o: LeaseOptions): Promise<JobLease | undefined> {
  const token = randomBytes(12).toString('hex');
  const where = { lease: keys.lease(o.stream, o.key), fence: keys.fence(o.stream, o.key) };
  const takenAt = Date.now();
  const answer = (await runScript(redis, LEASE_TAKE, [2, where.lease, where.fence, token, o.jobId, o.ttlMs, FENCE_TTL_SECONDS])) as Array<
    string | number
  >;
  const version = Number(answer[0]);
  if (!version) return undefined;
  const [call, , at, jobId] = answer.slice(1).map(String);
  const found = call ? { call, at: Number(at), jobId: jobId ?? '' } : undefined;
  return new JobLease(redis, where, o, token, version, found, takenAt);
}
