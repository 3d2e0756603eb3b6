/**
 * Throughput of the service client's hot path. A trivial HTTP server runs in a child process (one core); this
 * process drives ServiceClient.getOrder / createOrder as fast as `concurrency` allows, with the budget
 * unlimited (no Redis at all) and with a Redis budget whose limits are never reached (one EVALSHA a request).
 * Prints calls a second, latency p50/p99 and client CPU per call, each the median of `runs` runs; then catalog
 * lookups a second from memory.
 *
 *   npx tsx bench/once/client-throughput.ts [seconds per run, default 4] [concurrency, default 32] [runs, default 3]
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Catalog } from '../../src/catalog/catalog.js';
import { RequestBudget } from '../../src/client/budget/budget.js';
import type { CreateOrderBody } from '../../src/client/answers/schemas.js';
import { ServiceClient } from '../../src/client/service-client.js';
import { createRedis, redisKeys } from '../../src/redis/connection.js';
import { machine, machineLine } from '../lib/machine.js';
import { textTable } from '../lib/tables.js';
import { median } from '../lib/median.js';

const ORDER = JSON.stringify({
  orderId: 'WEB-1',
  orderUrl: '/demo/api/order/WEB-1',
  statusId: 'ORDER_CREATED',
  originFacilityUrl: '/demo/api/facility/1',
  actionUrlComplete: '/demo/api/order/WEB-1/complete',
  orderItemList: [
    {
      orderItemUrl: '/demo/api/order/WEB-1/orderItem/00001',
      productId: 'MUG-BLUE',
      productUrl: '/demo/api/product/10000',
      unitPrice: 12.5,
      quantity: 2,
    },
  ],
  invalidations: ['/demo/api/order'],
});
const BODY: CreateOrderBody = {
  orderId: 'WEB-1',
  orderTypeId: 'SALES_ORDER',
  originFacilityUrl: '/demo/api/facility/1',
  orderItemList: [{ productId: 'MUG-BLUE', productUrl: '/demo/api/product/10000', unitPrice: 12.5, quantity: 2 }],
};

function serveForever(): void {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(ORDER) });
      res.end(ORDER);
    });
  });
  server.listen(0, '127.0.0.1', () => process.send?.((server.address() as AddressInfo).port));
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

interface Figure {
  callsPerSec: number;
  p50: number;
  p99: number;
  cpuUsPerCall: number;
}

async function drive(client: ServiceClient, write: boolean, seconds: number, concurrency: number): Promise<Figure> {
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const s = performance.now();
        if (write) await client.createOrder(BODY);
        else await client.getOrder('/demo/api/order/WEB-1');
        latencies.push(performance.now() - s);
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  latencies.sort((a, b) => a - b);
  return {
    callsPerSec: latencies.length / elapsed,
    p50: pct(latencies, 0.5),
    p99: pct(latencies, 0.99),
    cpuUsPerCall: (cpu.user + cpu.system) / latencies.length,
  };
}

async function main(): Promise<void> {
  const [seconds = 4, concurrency = 32, runs = 3] = process.argv.slice(2).map(Number);
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], { execArgv: ['--import', 'tsx'] });
  const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(Number(m))));
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keys = redisKeys(`bench-client-${process.pid}`);
  const huge = { postPerMinute: 1e9, getPerMinute: 1e9, collectionPerHour: 1e9, headroom: 0.98 };
  const setups = [
    { name: 'GET, budget unlimited', budget: RequestBudget.unlimited(), write: false },
    { name: 'POST, budget unlimited', budget: RequestBudget.unlimited(), write: true },
    { name: 'GET, Redis budget (1 EVALSHA/request)', budget: new RequestBudget({ redis, keys, budgets: huge }), write: false },
    { name: 'POST, Redis budget (1 EVALSHA/request)', budget: new RequestBudget({ redis, keys, budgets: huge }), write: true },
  ];
  const rows: Array<Array<string | number>> = [];
  for (const s of setups) {
    const client = new ServiceClient({
      baseUrl: `http://127.0.0.1:${port}`,
      account: 'demo',
      apiKey: 'k',
      apiSecret: 's',
      budget: s.budget,
    });
    await drive(client, s.write, 0.5, concurrency); // warm-up: connections, JIT
    const figures: Figure[] = [];
    for (let i = 0; i < runs; i++) figures.push(await drive(client, s.write, seconds, concurrency));
    await client.close();
    rows.push([
      s.name,
      Math.round(median(figures.map((f) => f.callsPerSec))),
      Number(median(figures.map((f) => f.p50)).toFixed(2)),
      Number(median(figures.map((f) => f.p99)).toFixed(2)),
      Math.round(median(figures.map((f) => f.cpuUsPerCall))),
    ]);
  }

  // Catalog hits: memory only.
  const catalogClient = new ServiceClient({ baseUrl: `http://127.0.0.1:${port}`, account: 'demo', apiKey: 'k', apiSecret: 's' });
  const products = Array.from({ length: 5000 }, (_, i) => ({ productId: `SKU-${i}`, productUrl: `/demo/api/product/${10000 + i}` }));
  const fetchedAt = Date.now();
  const snapshot = { fetchedAt, products, facilities: [{ facilityUrl: '/demo/api/facility/1', facilityName: 'Main Warehouse' }] };
  await redis.hset(keys.catalog(), 'json', JSON.stringify(snapshot), 'fetchedAt', String(fetchedAt));
  const catalog = new Catalog({ client: catalogClient, redis, keys, refreshSeconds: 300 });
  await catalog.product('SKU-1');
  const n = 1_000_000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await catalog.product(`SKU-${i % 5000}`);
  const lookupsPerSec = n / ((performance.now() - t0) / 1000);

  await catalogClient.close();
  for (const k of [keys.catalog(), keys.budget('get'), keys.budget('post'), keys.budgetStats()]) await redis.del(k);
  await redis.quit();
  child.kill();

  console.log(`client throughput, ${seconds} s × ${runs} runs (medians), concurrency ${concurrency}`);
  console.log(machineLine(machine()));
  console.log(textTable(['setup', 'calls/s', 'p50 ms', 'p99 ms', 'client CPU µs/call'], rows));
  console.log(`catalog product lookups from memory: ${Math.round(lookupsPerSec).toLocaleString('en')} a second`);
}

if (process.argv.includes('--serve')) serveForever();
else await main();
