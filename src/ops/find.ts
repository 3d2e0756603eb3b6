import type { Mapping } from '../../config/mapping-file.js';
import type { RedisConnection as Redis } from '../redis/connection.js';
import { mappedNamesOf, type MappedNameRow } from './mapped-names.js';
import { showJob, type JobStory } from './job-inspect.js';
import type { StreamQueues } from '../queue/stream-queues.js';
import { redisKeys } from '../redis/connection.js';
import type { StreamName } from '../records/stream-name.js';
import type { EntityRef, FoundProgress, FoundSection } from './find-rule.js';
import { findJobIds } from '../queue/job-index.js';
import type { OpsKind } from './ops-kind.js';
import type { VersionStanding } from './state-words.js';

/** An entity of the service a record made or changed. */
export interface RecordEntity extends EntityRef {
  /** Where it is known from: a job id, or `progress` (the record's progress in Redis). */
  source: string;
}

/** One job of the key: its whole story, and which version of the record it is. */
export interface FoundJob extends JobStory {
  /** 1 for the first record of this key in its stream, 2 for the first correction, ... (by time queued, then first processed). */
  version: number;
  /** Whether it is the newest version in its stream (by the time it was queued). */
  latest: boolean;
  /**
   * Where it stands among its stream's versions: `in force` (the newest that completed and was not skipped: what the
   * service holds), `superseded` (an earlier one that completed, or failed before a newer version synced: history),
   * `skipped` (left alone on purpose, e.g. an older snapshot delivered late), `failed` (failed now), `pending` (not
   * finished yet), `only` (the one version).
   */
  standing: VersionStanding;
}

/** What `find` answers for a business key. */
export interface FindResult {
  key: string;
  prefix: string;
  found: boolean;
  /** Every job of the key across streams, oldest first. */
  jobs: FoundJob[];
  entities: RecordEntity[];
  /** Under MAPPING_FILE: each product and facility the key's records name that is mapped, with the service's name. */
  mapped: MappedNameRow[];
  /** What Redis holds of the key's progress, per kind that has some (`order`, `count`), as each kind's find rule reads it. */
  progress: Record<string, Record<string, unknown>>;
  /** The same, one line per kind, for people. */
  progressLines: string[];
  /** More of the progress as tables, when a kind tells more (an order's snapshots in order, its shipments, returns). */
  sections: FoundSection[];
}

const outcomeOf = (s: JobStory) => (s.result as { outcome?: unknown } | null)?.outcome;

/**
 * A version's standing (FoundJob.standing): the one in force is the newest that completed and was not skipped; a
 * failed one that a newer version synced after is superseded (history, src/ops/failures-now.ts), not failed now.
 */
function standingOf(s: JobStory, versions: readonly JobStory[]): VersionStanding {
  if (s.supersededBy) return 'superseded';
  if (versions.length === 1) return 'only';
  if (s.state === 'failed') return 'failed';
  if (s.state !== 'completed') return 'pending';
  if (outcomeOf(s) === 'skipped') return 'skipped';
  const inForce = [...versions].reverse().find((v) => v.state === 'completed' && outcomeOf(v) !== 'skipped');
  return s === inForce ? 'in force' : 'superseded';
}

function detailsOf(job: JobStory): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  const rv = job.result as { details?: Record<string, unknown> } | null;
  if (rv?.details) out.push(rv.details);
  for (const a of job.attempts) if (a.result?.details) out.push(a.result.details as Record<string, unknown>);
  return out;
}

/**
 * Every job of an orderId, countId or productId across streams (each version of the record, its state, attempts,
 * calls and error), with the service entities it made or changed, from the jobs' results and the progress in Redis.
 */
export async function findRecord(
  redis: Redis,
  queues: StreamQueues,
  key: string,
  streams: readonly StreamName[] = queues.names,
  o: { mapping?: Mapping; kinds?: readonly OpsKind[] } = {},
): Promise<FindResult> {
  const kinds = o.kinds ?? [];
  const ids = await findJobIds(redis, queues.prefix, key, streams);
  const stories = (await Promise.all(ids.map((id) => showJob(queues, id)))).filter(
    // A key longer than a job id keeps shares its id prefix with others: keep only this key's records.
    (s): s is JobStory => s !== undefined && s.key === key,
  );
  // Queued together (one feed page), the one processed first counts as the earlier version.
  const started = (s: JobStory) => s.attempts[0]?.startedAt ?? '\uffff';
  stories.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || started(a).localeCompare(started(b)) || a.id.localeCompare(b.id));
  const perStream = new Map<StreamName, JobStory[]>();
  for (const s of stories) perStream.set(s.stream, [...(perStream.get(s.stream) ?? []), s]);
  const jobs: FoundJob[] = stories.map((s) => {
    const mine = perStream.get(s.stream)!;
    const i = mine.indexOf(s);
    return { ...s, version: i + 1, latest: i === mine.length - 1, standing: standingOf(s, mine) };
  });

  const keys = redisKeys(queues.prefix);
  const read = await Promise.all(kinds.filter((k) => streams.includes(k.stream)).map((k) => k.ops?.find?.progress?.(redis, keys, key)));
  const progressOfKinds = read.filter((p): p is FoundProgress => p !== undefined);
  const entities = new Map<string, RecordEntity>();
  const add = (e: Omit<RecordEntity, 'source'>, source: string) => {
    if (!entities.has(e.url)) entities.set(e.url, { ...e, source });
  };
  for (const j of [...jobs].reverse()) {
    const rule = kinds.find((k) => k.stream === j.stream)?.ops?.find;
    if (rule) for (const d of detailsOf(j)) for (const e of rule.entities(d)) add(e, j.id);
  }
  for (const p of progressOfKinds) for (const e of p.entities) add(e, 'progress');
  const order = kinds.flatMap((k) => k.ops?.find?.entityKinds ?? []);
  const list = [...entities.values()].sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
  const mapped = mappedNamesOf(
    jobs.map((j) => j.record),
    o.mapping,
  );
  const progress = Object.fromEntries(progressOfKinds.map((p) => [p.name, p.value]));
  const progressLines = progressOfKinds.map((p) => p.line);
  const sections = progressOfKinds.flatMap((p) => p.sections ?? []);
  const found = jobs.length > 0 || list.length > 0 || sections.length > 0;
  return { key, prefix: queues.prefix, found, jobs, entities: list, mapped, progress, progressLines, sections };
}
