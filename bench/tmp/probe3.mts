import { createHash, hash } from 'node:crypto';
import { readNdjson } from '../../src/feed/ndjson.js';
import { canonicalJson } from '../../src/queue/job-id.js';
const file = '/tmp/probe-orders.ndjson';
const recs: unknown[] = [];
for await (const e of readNdjson(file)) if (!('error' in e)) recs.push(e.value);
function sortedReplacer(this: unknown, _k: string, v: unknown) {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
  const keys = Object.keys(v as object);
  let sorted = true;
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) { sorted = false; break; }
  if (sorted) return v;
  keys.sort();
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = (v as Record<string, unknown>)[k];
  return out;
}
const viaReplacer = (r: unknown) => JSON.stringify(r, sortedReplacer);
for (const r of recs.slice(0, 1000)) if (viaReplacer(r) !== canonicalJson(r)) throw new Error('differs');
for (let run = 0; run < 3; run++) {
  let t0 = performance.now(); for (const r of recs) canonicalJson(r); const canon = performance.now() - t0;
  t0 = performance.now(); for (const r of recs) viaReplacer(r); const repl = performance.now() - t0;
  const strs = recs.map(viaReplacer);
  t0 = performance.now(); for (const s of strs) createHash('sha256').update(s).digest('hex'); const h1 = performance.now() - t0;
  t0 = performance.now(); for (const s of strs) hash('sha256', s, 'hex'); const h2 = performance.now() - t0;
  console.log({ canon: canon | 0, replacer: repl | 0, createHash: h1 | 0, oneShot: h2 | 0 });
}
