import { readNdjson } from '../../src/feed/ndjson.js';
import { checkRecord, recordKey } from '../../src/feed/records.js';
import { canonicalJson, recordHash, jobIdFor } from '../../src/queue/job-id.js';
const file = '/tmp/probe-orders.ndjson';
const recs: unknown[] = [];
for await (const e of readNdjson(file)) if (!('error' in e)) recs.push(e.value);
for (let run = 0; run < 3; run++) {
  let t0 = performance.now(); for (const r of recs) checkRecord('orders', r); const check = performance.now() - t0;
  t0 = performance.now(); for (const r of recs) canonicalJson(r); const canon = performance.now() - t0;
  t0 = performance.now(); for (const r of recs) recordHash(r); const hash = performance.now() - t0;
  t0 = performance.now(); for (const r of recs) jobIdFor('orders', r); const id = performance.now() - t0;
  t0 = performance.now(); for (const r of recs) JSON.stringify(r); const str = performance.now() - t0;
  console.log({ check: check | 0, canon: canon | 0, hash: hash | 0, id: id | 0, stringify: str | 0 });
}
