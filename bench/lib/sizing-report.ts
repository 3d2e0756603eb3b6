/** The Redis sizing bench's figures as text and Markdown, and what they mean for 10,000 orders a day. */
import type { ProgramStream } from '../../jobs/kinds.js';
import type { KeyBound } from '../../test/kit/key-bounds.js';
import { markdownTable } from './tables.js';

/** Bytes by documented pattern (kind and life with it). */
export type Groups = Map<string, { bound?: KeyBound; keys: number; bytes: number; entries: number }>;

export interface StreamSizing {
  stream: ProgramStream;
  records: number;
  seconds: number;
  /** Per pattern, what the stream's records added. */
  added: Groups;
  /** used_memory after minus before, bytes (the whole Redis: other users' keys move it too). */
  usedMemoryDelta: number;
}

export interface SizingFigures {
  records: number;
  streams: StreamSizing[];
  /** Everything under the prefix right after the three syncs, by pattern. */
  steady: Groups;
  /** What remains once completed jobs are trimmed and every key with a life has expired. */
  retained: Groups;
}

const JOB = ['{prefix}:{queue}:{jobId}', '{prefix}:{queue}:{jobId}:logs', '{prefix}:{queue}:completed'];
const INDEX = '{prefix}:jobs-by-key:{day}';
/** Structures capped by length whatever the records: counted at their caps, not per record. */
const CAPPED = { '{prefix}:{queue}:events': 10_000, '{prefix}:{queue}:metrics:{type}:data': 2_880 } as Record<string, number>;
const QUEUES = 7;
const DAY = 10_000;
const MB = 1024 * 1024;

const sum = (g: Groups, keep: (pattern: string, kind: string | undefined) => boolean) =>
  [...g].filter(([p, x]) => keep(p, x.bound?.kind)).reduce((n, [, x]) => n + x.bytes, 0);
const mb = (bytes: number) => (bytes / MB).toFixed(bytes < 10 * MB ? 2 : 1);
const b = (n: number) => Math.round(n).toLocaleString('en');

/** Per record of a stream: everything it added (capped structures aside), by part, and what survives retention. */
export function perRecord(s: StreamSizing) {
  const n = s.records;
  const perRecordGroup = (p: string) => !(p in CAPPED);
  return {
    steady: sum(s.added, (p) => perRecordGroup(p)) / n,
    job: sum(s.added, (p) => JOB.includes(p)) / n,
    index: sum(s.added, (p) => p === INDEX) / n,
    state: sum(s.added, (p, k) => k === 'ttl' && p !== INDEX) / n,
    retained: sum(s.added, (_p, k) => k === 'long-lived') / n,
    usedMemory: s.usedMemoryDelta / n,
  };
}

/** Bytes of a capped structure at its cap, from its measured bytes an entry (undefined when none was written). */
function atCap(f: SizingFigures): number {
  let total = 0;
  for (const [pattern, cap] of Object.entries(CAPPED)) {
    const g = f.steady.get(pattern);
    if (g && g.entries > 0) total += (g.bytes / g.entries) * cap * (pattern.includes('events') ? QUEUES : 6);
  }
  return total;
}

/** What 10,000 orders a day mean: one day right after its sync; the level a year of it keeps; what stays after. */
export function ordersPlan(f: SizingFigures) {
  const o = perRecord(f.streams.find((s) => s.stream === 'orders')!);
  const day = o.steady * DAY;
  // Completed jobs: 7 days, at most 50,000 a stream; progress 30 days; the find index 9 days.
  const plateau = Math.min(7 * DAY, 50_000) * o.job + 30 * DAY * o.state + 9 * DAY * o.index;
  const retained = sum(f.retained, (p) => !(p in CAPPED)) + atCap(f);
  return { day, plateau: plateau + retained, retained, capped: atCap(f) };
}

export function sizingReport(f: SizingFigures, command: string): string[] {
  const rows = f.streams.map((s) => {
    const p = perRecord(s);
    return [s.stream, b(s.records), s.seconds.toFixed(1), b(p.steady), b(p.job), b(p.state), b(p.index), b(p.usedMemory), b(p.retained)];
  });
  const patterns = [...new Set([...f.steady.keys(), ...f.retained.keys()])].sort();
  const keyRows = patterns.map((p) => {
    const s = f.steady.get(p);
    const r = f.retained.get(p);
    return [`\`${p}\``, s?.bound?.kind ?? 'undocumented', b(s?.keys ?? 0), b(s?.bytes ?? 0), b(r?.keys ?? 0), b(r?.bytes ?? 0)];
  });
  const plan = ordersPlan(f);
  const marks = f.retained.get('{prefix}:stock:marks:{location}');
  return [
    `${b(f.records)} orders, then ${b(f.records)} stock counts (3 products each, 10 locations), then ${b(f.records)} BOMs (2 components each) synced by the real workers against the sandbox in this process (bench/redis-sizing.ts). ` +
      'Bytes are the sum of `MEMORY USAGE key SAMPLES 0` over the keys of the prefix, grouped by the patterns of docs/redis.md "Redis sizing", after minus before each stream; ' +
      "capped structures (BullMQ's event streams and per-minute counts) are left out of the per-record figures and counted at their caps below. `used_memory` is `INFO memory` after minus before (the whole Redis, allocator included; others' keys move it too). " +
      '"After retention" runs what retention does: BullMQ trims every completed job (as it does at 7 days or 50,000 a stream) and every key with a life is removed (as Redis does when it passes; the longest is 90 days).',
    '',
    `Command: \`${command}\``,
    '',
    markdownTable(
      [
        'stream',
        'records',
        'seconds',
        'bytes/record, steady',
        'of which the job',
        'progress and stock state',
        'find index',
        'used_memory Δ/record',
        'bytes/record after retention',
      ],
      rows,
    ),
    '',
    `For 10,000 orders a day: **${mb(plan.day)} MB** for one day's orders right after their sync (completed jobs kept); ` +
      `**${mb(plan.plateau)} MB** held at any time over a year of it (completed jobs: 7 days capped at 50,000, progress 30 days, the find index 9 days, plus what stays); ` +
      `**${mb(plan.retained)} MB** once syncing stops and every retention has passed (long-lived keys, and the capped structures at their caps: ${mb(plan.capped)} MB).`,
    '',
    marks && marks.entries > 0
      ? `The stock marks, the one long-lived key that grows with the account rather than the records: **${b(marks.bytes / marks.entries)} bytes a (location, product) pair** counted (${b(marks.entries)} pairs here); 100 locations × 10,000 products would be ${mb((marks.bytes / marks.entries) * 1_000_000)} MB.`
      : 'No stock mark was written.',
    '',
    markdownTable(['key', 'bound', 'keys, steady', 'bytes, steady', 'keys after retention', 'bytes after retention'], keyRows),
  ];
}
