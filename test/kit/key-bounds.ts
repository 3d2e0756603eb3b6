/**
 * The bound of every Redis key, as docs/redis.md "Redis sizing" documents it: three tables (keys that expire,
 * keys capped by length and jobs, long-lived keys), each row a `{prefix}:...` pattern. The doc is the one list: the
 * test that no key is unbounded (test/redis/redis-bounds.test.ts) and the sizing bench (bench/redis-sizing.ts) read it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { intakeQueueName } from '../../src/queue/intake-queue.js';
import { CONTROL_QUEUE } from '../../src/queue/queues.js';
import { STREAMS, programKinds } from '../../jobs/kinds.js';

export type BoundKind = 'ttl' | 'capped' | 'long-lived';

export interface KeyBound {
  kind: BoundKind;
  /** As written in the doc: `{prefix}:order:{orderId}`. */
  pattern: string;
  /** Longest life, in ms (kind ttl). */
  lifeMs?: number;
  /** Longest length (kind capped, when the cap is a number). */
  cap?: number;
  /** The row's other cells, for messages. */
  text: string;
}

const REDIS_DOC = fileURLToPath(new URL('../../docs/redis.md', import.meta.url));
const HEADINGS: Record<string, BoundKind> = {
  'Keys that expire': 'ttl',
  'Keys capped by length, and jobs': 'capped',
  'Long-lived keys': 'long-lived',
};
const alt = (xs: readonly string[]) => `(?:${xs.map(escape).join('|')})`;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What a `{name}` of a pattern stands for; any other name is any text. */
const PLACES: Record<string, string> = {
  queue: alt([...STREAMS, ...STREAMS.map(intakeQueueName), CONTROL_QUEUE]),
  stream: alt(STREAMS),
  scheduler: alt(programKinds.map((d) => d.feed.scheduler)),
  type: alt(['completed', 'failed']),
  state: alt(['wait', 'paused', 'active', 'delayed', 'prioritized', 'marker', 'failed', 'waiting-children', 'stalled', 'pc']),
  class: alt(['get', 'post', 'collection', 'total']),
  day: '\\d{4}-\\d{2}-\\d{2}',
};

const UNITS: Record<string, number> = {
  s: 1000,
  second: 1000,
  seconds: 1000,
  minute: 60_000,
  minutes: 60_000,
  hour: 3_600_000,
  hours: 3_600_000,
  day: 86_400_000,
  days: 86_400_000,
};

/** `30 days` → ms. */
export function parseLife(text: string): number | undefined {
  const m = /(\d+(?:\.\d+)?)\s*(seconds?|s|minutes?|hours?|days?)\b/.exec(text);
  return m ? Number(m[1]) * UNITS[m[2]!]! : undefined;
}

/** The rows of the three tables, in the order a key is matched against them: expiring, long-lived, capped. */
export function readKeyBounds(doc = readFileSync(REDIS_DOC, 'utf8')): KeyBound[] {
  const section = doc.split(/^## Redis sizing$/m)[1]?.split(/^## /m)[0];
  if (!section) throw new Error('docs/redis.md has no "## Redis sizing" section');
  const rows: KeyBound[] = [];
  for (const part of section.split(/^### /m).slice(1)) {
    const kind = HEADINGS[part.split('\n')[0]!.trim()];
    if (!kind) continue;
    for (const line of part.split('\n')) {
      const cells = /^\| `([^`]+)` \|(.*)\|\s*$/.exec(line);
      if (!cells) continue;
      const text = cells[2]!.trim();
      const first = text.split('|')[0]!;
      const cap = /^\s*([\d,]+)\s/.exec(first)?.[1];
      rows.push({
        kind,
        pattern: cells[1]!,
        text,
        ...(kind === 'ttl' ? { lifeMs: parseLife(first) } : {}),
        ...(kind === 'capped' && cap ? { cap: Number(cap.replace(/,/g, '')) } : {}),
      });
    }
  }
  const order: BoundKind[] = ['ttl', 'long-lived', 'capped'];
  return rows.sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
}

/** A pattern as a regular expression over the keys of one prefix. */
export function patternRegExp(pattern: string, prefix: string): RegExp {
  const body = pattern
    .split(/(\{[a-zA-Z]+\})/)
    .map((part) => {
      const name = /^\{([a-zA-Z]+)\}$/.exec(part)?.[1];
      if (name === 'prefix') return escape(prefix);
      if (name) return PLACES[name] ?? '.+';
      return escape(part);
    })
    .join('');
  return new RegExp(`^${body}$`);
}

/** Classifies keys of a prefix: the first row each matches (undefined: a key no row documents). */
export function keyClassifier(bounds: KeyBound[], prefix: string): (key: string) => KeyBound | undefined {
  const res = bounds.map((b) => [b, patternRegExp(b.pattern, prefix)] as const);
  return (key) => res.find(([, re]) => re.test(key))?.[0];
}
