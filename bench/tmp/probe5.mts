import { readNdjson } from '../../src/feed/ndjson.js';
import { canonicalJson } from '../../src/queue/job-id.js';
const file = '/tmp/probe-orders.ndjson';
const recs: unknown[] = [];
for await (const e of readNdjson(file)) if (!('error' in e)) recs.push(e.value);
function collect(v: unknown, keys: Set<string>): boolean {
  if (v === null || typeof v !== 'object') return true;
  if (Array.isArray(v)) { for (const x of v) if (!collect(x, keys)) return false; return true; }
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  for (const k in v as object) { if (!Object.prototype.hasOwnProperty.call(v, k)) continue; keys.add(k); if (!collect((v as Record<string, unknown>)[k], keys)) return false; }
  return true;
}
function viaList(v: unknown): string {
  const keys = new Set<string>();
  if (!collect(v, keys)) return canonicalJson(v);
  return JSON.stringify(v, [...keys].sort()) ?? 'null';
}
for (const r of recs) if (viaList(r) !== canonicalJson(r)) throw new Error('differs');
for (let run = 0; run < 4; run++) {
  let t0 = performance.now(); for (const r of recs) canonicalJson(r); const canon = performance.now() - t0;
  t0 = performance.now(); for (const r of recs) viaList(r); const f = performance.now() - t0;
  console.log({ canon: canon | 0, viaList: f | 0, ratio: (canon / f).toFixed(2) });
}
