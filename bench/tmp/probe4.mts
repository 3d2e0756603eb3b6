import { readNdjson } from '../../src/feed/ndjson.js';
import { canonicalJson } from '../../src/queue/job-id.js';
const file = '/tmp/probe-orders.ndjson';
const recs: unknown[] = [];
for await (const e of readNdjson(file)) if (!('error' in e)) recs.push(e.value);
const quoted = new Map<string, string>();
function quoteKey(k: string): string {
  let q = quoted.get(k);
  if (q === undefined) { q = JSON.stringify(k); if (quoted.size < 10_000) quoted.set(k, q); }
  return q;
}
function fast(value: unknown): string {
  switch (typeof value) {
    case 'string': return JSON.stringify(value);
    case 'number': return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean': return value ? 'true' : 'false';
    case 'object': break;
    default: return JSON.stringify(value) ?? 'null';
  }
  if (value === null) return 'null';
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return fast((value as { toJSON: () => unknown }).toJSON());
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (i) out += ',';
      out += item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 'null' : fast(item);
    }
    return out + ']';
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) { keys.sort(); break; }
  let out = '{';
  let first = true;
  for (const key of keys) {
    const v = obj[key];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    out += (first ? '' : ',') + quoteKey(key) + ':' + fast(v);
    first = false;
  }
  return out + '}';
}
for (const r of recs) if (fast(r) !== canonicalJson(r)) throw new Error('differs ' + JSON.stringify(r));
for (let run = 0; run < 4; run++) {
  let t0 = performance.now(); for (const r of recs) canonicalJson(r); const canon = performance.now() - t0;
  t0 = performance.now(); for (const r of recs) fast(r); const f = performance.now() - t0;
  console.log({ canon: canon | 0, fast: f | 0, ratio: (canon / f).toFixed(2) });
}
