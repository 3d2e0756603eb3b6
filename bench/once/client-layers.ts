/**
 * What the layers around the service client's one request function cost: client CPU per getOrder, with the answer
 * given by an undici MockAgent (no socket, no server), through the bare request function (`httpSend` alone), the
 * client with its layers (read retries, 401 rotation, followed paths, an unlimited budget), and the client as a job's
 * attempt (tracing) and the dry run (tracing and read-only) see it. Each figure is the median of `runs` runs.
 *
 *   npx tsx bench/once/client-layers.ts [calls per run, default 20000] [runs, default 5]
 */
import { MockAgent } from 'undici';
import { apiOf } from '../../src/client/api-of.js';
import type { ApiCall } from '../../src/client/api-call.js';
import { compose } from '../../src/client/layers/call-layers.js';
import { credentialRotation } from '../../src/client/layers/client-layers.js';
import { Credentials } from '../../src/client/credentials.js';
import { httpSend } from '../../src/client/layers/http-send.js';
import { readOnlyApi } from '../../src/client/layers/read-only-api.js';
import type { ServiceApi } from '../../src/client/service-api.js';
import { serviceCalls } from '../../src/client/service-calls.js';
import { ServiceClient } from '../../src/client/service-client.js';
import { tracedClient } from '../../src/queue/traced-client.js';
import { machine, machineLine } from '../lib/machine.js';
import { median } from '../lib/median.js';
import { textTable } from '../lib/tables.js';

const ORIGIN = 'http://service.test';
const ORDER = JSON.stringify({ orderId: 'WEB-1', orderUrl: '/demo/api/order/WEB-1', statusId: 'ORDER_CREATED', orderItemList: [] });
const calls = Number(process.argv[2] ?? 20_000);
const runs = Number(process.argv[3] ?? 5);

const agent = new MockAgent();
agent.disableNetConnect();
agent
  .get(ORIGIN)
  .intercept({ path: /.*/, method: 'GET' })
  .reply(200, ORDER, { headers: { 'content-type': 'application/json' } })
  .persist();

const client = new ServiceClient({ baseUrl: ORIGIN, account: 'demo', apiKey: 'k', apiSecret: 's', dispatcher: agent });
const bare: ServiceApi = apiOf(
  serviceCalls,
  'demo',
  compose(
    [credentialRotation(Credentials.fixed('k', 's'))],
    httpSend({
      origin: ORIGIN,
      basePath: '',
      dispatcher: agent,
      secrets: () => [],
      entityTimeoutMs: 15_000,
      collectionTimeoutMs: 120_000,
      maxResponseBytes: 1 << 20,
    }),
  ),
);
const trace: ApiCall[] = [];
const setups: Array<[string, ServiceApi]> = [
  ['the bare request function (httpSend)', bare],
  ['the client and its layers', client],
  ['... traced, as a job attempt', tracedClient(client, (c) => trace.push(c))],
  ['... read-only and traced, as the dry run', tracedClient(readOnlyApi(client), (c) => trace.push(c))],
];

/** Client CPU per call, in µs, over `n` calls one after the other. */
async function cpuPerCall(api: ServiceApi, n: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await api.getOrder('/demo/api/order/WEB-1');
  const used = process.cpuUsage(start);
  trace.length = 0;
  return (used.user + used.system) / n;
}

for (const [, api] of setups) await cpuPerCall(api, 2_000); // warm up every path first
const figures = new Map<string, number[]>(setups.map(([name]) => [name, []]));
// Runs interleaved, so the machine's load falls on every setup alike.
for (let r = 0; r < runs; r++) for (const [name, api] of setups) figures.get(name)!.push(await cpuPerCall(api, calls));

const base = median(figures.get(setups[0]![0])!);
process.stdout.write(`client layers, ${calls} calls × ${runs} runs (medians)\n${machineLine(machine())}\n`);
const rows = setups.map(([name]) => {
  const us = median(figures.get(name)!);
  return [name, us.toFixed(1), `+${(us - base).toFixed(1)}`];
});
process.stdout.write(`${textTable(['path', 'client CPU µs/call', 'over the bare function'], rows)}\n`);
await client.close();
await agent.close();
