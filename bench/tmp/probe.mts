import { createWriteStream } from 'node:fs';
import { readNdjson } from '../../src/feed/ndjson.js';
import { recordJob } from '../../src/queue/record-jobs.js';
import { benchOrders } from '../lib/order-records.js';
const file = '/tmp/probe-orders.ndjson';
const out = createWriteStream(file);
for (let i = 0; i < 100_000; i += 1000) out.write(benchOrders(`IMP-${i}`, 1000).map((r) => JSON.stringify(r)).join('\n') + '\n');
await new Promise((r) => out.end(r));
for (let run = 0; run < 3; run++) {
  let t0 = performance.now(); let n = 0;
  for await (const e of readNdjson(file)) { n++; }
  const parse = performance.now() - t0;
  t0 = performance.now();
  for await (const e of readNdjson(file)) { if (!('error' in e)) recordJob('orders', e.value, 'import', e.line); }
  console.log(n, 'parse ms', parse.toFixed(0), 'parse+check+hash ms', (performance.now() - t0).toFixed(0));
}
