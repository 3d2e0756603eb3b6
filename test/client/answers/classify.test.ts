import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isServiceError, type ServiceError, type ServiceErrorCode, type WriteOutcome } from '../../../src/client/answers/errors.js';
import { ServiceClient } from '../../../src/client/service-client.js';
import type { CreateOrderBody, CreateShipmentBody } from '../../../src/client/answers/schemas.js';
import type { ApiCall } from '../../../src/client/service-api.js';
import { json, startServer, type TestServer } from '../http-server.js';

const KEY = 'key-7f3a9c';
const SECRET = 'secret-b81e44';
const BASIC = Buffer.from(`${KEY}:${SECRET}`).toString('base64');
const DUP = 'Database integrity violation: duplicate object: order WEB-1';
const MISSING = 'Database integrity violation: reference to an object that does not exist: /demo/api/product/404';
const SPEC_7 = 'Database integrity violation due to reference to an object that does not exist or to a duplicate object';
const COMPLETED = 'Order WEB-1 is completed and cannot be modified until it is made editable again';

type Call = 'get' | 'post' | 'collection' | 'action' | 'shipment' | 'ship';
type Behave = (res: ServerResponse) => void;

interface Row {
  name: string;
  call: Call;
  /** What the server does; undefined: the client talks to a port where nothing listens. */
  behave?: Behave;
  host?: string;
  code: ServiceErrorCode;
  retryable: boolean;
  outcome: WriteOutcome;
  status?: number;
  msg?: string;
  /** Expected resetAt, in ms from the time of the call. */
  resetIn?: number;
  /** What the message must say beyond the request. */
  message?: RegExp;
}

const answer =
  (status: number, body: unknown, headers?: Record<string, string>): Behave =>
  (res) =>
    json(res, status, body, headers);
const rows: Row[] = [
  {
    name: '401 unauthorized',
    call: 'get',
    behave: answer(401, ''),
    code: 'UNAUTHORIZED',
    retryable: false,
    outcome: 'not-applied',
    status: 401,
  },
  {
    name: '403 forbidden (write)',
    call: 'post',
    behave: answer(403, { msg: 'no write rights' }),
    code: 'FORBIDDEN',
    retryable: false,
    outcome: 'not-applied',
    msg: 'no write rights',
  },
  {
    name: '403 forbidden (read)',
    call: 'get',
    behave: answer(403, ''),
    code: 'FORBIDDEN',
    retryable: false,
    outcome: 'not-applied',
    status: 403,
  },
  {
    name: '403 on an action of an order (completed)',
    call: 'action',
    behave: answer(403, { msg: 'Permission denied' }),
    code: 'ORDER_COMPLETED',
    retryable: false,
    outcome: 'not-applied',
    status: 403,
    msg: 'Permission denied',
  },
  {
    name: '403 creating a shipment on an order (completed)',
    call: 'shipment',
    behave: answer(403, ''),
    code: 'ORDER_COMPLETED',
    retryable: false,
    outcome: 'not-applied',
    status: 403,
  },
  {
    name: '403 on a shipment write',
    call: 'ship',
    behave: answer(403, ''),
    code: 'FORBIDDEN',
    retryable: false,
    outcome: 'not-applied',
    status: 403,
  },
  {
    name: '403 on a shipment write saying the order is completed',
    call: 'ship',
    behave: answer(403, { msg: COMPLETED }),
    code: 'ORDER_COMPLETED',
    retryable: false,
    outcome: 'not-applied',
    status: 403,
    msg: COMPLETED,
  },
  {
    name: '404 not found',
    call: 'get',
    behave: answer(404, { msg: 'no such order' }),
    code: 'NOT_FOUND',
    retryable: false,
    outcome: 'not-applied',
    status: 404,
  },
  {
    name: '400 duplicate object',
    call: 'post',
    behave: answer(400, { msg: DUP }),
    code: 'DUPLICATE',
    retryable: false,
    outcome: 'not-applied',
    msg: DUP,
  },
  {
    name: '400 reference to a missing object',
    call: 'post',
    behave: answer(400, { msg: MISSING }),
    code: 'MISSING_REFERENCE',
    retryable: false,
    outcome: 'not-applied',
    msg: MISSING,
  },
  {
    name: '400 non-existing object wording',
    call: 'post',
    behave: answer(400, { msg: 'Database integrity violation: reference to non-existing object' }),
    code: 'MISSING_REFERENCE',
    retryable: false,
    outcome: 'not-applied',
  },
  {
    name: '400 spec §7 message naming both causes',
    call: 'post',
    behave: answer(400, { msg: SPEC_7 }),
    code: 'INTEGRITY_VIOLATION',
    retryable: false,
    outcome: 'not-applied',
    msg: SPEC_7,
  },
  {
    name: '400 integrity message naming neither',
    call: 'post',
    behave: answer(400, { msg: 'Database integrity violation' }),
    code: 'INTEGRITY_VIOLATION',
    retryable: false,
    outcome: 'not-applied',
  },
  {
    name: '400 completed order',
    call: 'action',
    behave: answer(400, { msg: COMPLETED }),
    code: 'ORDER_COMPLETED',
    retryable: false,
    outcome: 'not-applied',
    msg: COMPLETED,
  },
  {
    name: '400 with errorMessage',
    call: 'post',
    behave: answer(400, { errorMessage: 'physicalInventoryDate must be at 19:00' }),
    code: 'VALIDATION',
    retryable: false,
    outcome: 'not-applied',
    msg: 'physicalInventoryDate must be at 19:00',
  },
  {
    name: '422 with a plain-text body',
    call: 'post',
    behave: (res) => {
      res.writeHead(422, { 'content-type': 'text/plain' });
      res.end('malformed body');
    },
    code: 'VALIDATION',
    retryable: false,
    outcome: 'not-applied',
    msg: 'malformed body',
  },
  {
    name: '400 echoing the credentials',
    call: 'post',
    behave: answer(400, { msg: `bad header Basic ${BASIC} for ${KEY}` }),
    code: 'VALIDATION',
    retryable: false,
    outcome: 'not-applied',
  },
  {
    name: '429 reset in epoch seconds',
    call: 'post',
    behave: (res) => json(res, 429, '', { 'x-ratelimit-limit': '120', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 45) }),
    code: 'RATE_LIMITED',
    retryable: true,
    outcome: 'not-applied',
    resetIn: 45_000,
  },
  {
    name: '429 reset in epoch ms',
    call: 'post',
    behave: (res) => json(res, 429, '', { 'x-ratelimit-reset': String(Date.now() + 42_000) }),
    code: 'RATE_LIMITED',
    retryable: true,
    outcome: 'not-applied',
    resetIn: 42_000,
  },
  {
    name: '429 reset as seconds from now',
    call: 'get',
    behave: answer(429, '', { 'x-ratelimit-reset': '30' }),
    code: 'RATE_LIMITED',
    retryable: true,
    outcome: 'not-applied',
    resetIn: 30_000,
  },
  {
    name: '429 Retry-After seconds',
    call: 'post',
    behave: answer(429, '', { 'retry-after': '7' }),
    code: 'RATE_LIMITED',
    retryable: true,
    outcome: 'not-applied',
    resetIn: 7_000,
  },
  {
    name: '429 Retry-After HTTP date',
    call: 'collection',
    behave: (res) => json(res, 429, '', { 'retry-after': new Date(Date.now() + 90_000).toUTCString() }),
    code: 'RATE_LIMITED',
    retryable: true,
    outcome: 'not-applied',
    resetIn: 90_000,
  },
  {
    name: '429 reset far beyond any window',
    call: 'post',
    behave: answer(429, '', { 'x-ratelimit-reset': '2000000000' }),
    code: 'RATE_LIMITED',
    retryable: true,
    outcome: 'not-applied',
    resetIn: 2 * 3600_000,
  },
  {
    name: '429 without reset headers',
    call: 'post',
    behave: answer(429, { msg: 'slow down' }),
    code: 'RATE_LIMITED',
    retryable: true,
    outcome: 'not-applied',
    resetIn: 60_000,
  },
  {
    name: '503 (write)',
    call: 'post',
    behave: answer(503, 'busy'),
    code: 'TRANSIENT',
    retryable: true,
    outcome: 'not-applied',
    status: 503,
  },
  { name: '500 (write)', call: 'post', behave: answer(500, 'boom'), code: 'TRANSIENT', retryable: true, outcome: 'uncertain', status: 500 },
  {
    name: '502 (read)',
    call: 'get',
    behave: answer(502, 'bad gateway'),
    code: 'TRANSIENT',
    retryable: true,
    outcome: 'not-applied',
    status: 502,
  },
  {
    name: '200 whose body misses what the step needs (write)',
    call: 'post',
    behave: answer(200, { orderId: 'WEB-1', orderUrl: null }),
    code: 'BAD_RESPONSE',
    retryable: false,
    outcome: 'applied',
    status: 200,
    message: /^POST \/demo\/api\/order answered 200 .*: orderUrl: is null$/,
  },
  {
    name: '200 read without a field the read needs',
    call: 'get',
    behave: answer(200, { orderUrl: '/demo/api/order/WEB-1' }),
    code: 'BAD_RESPONSE',
    retryable: false,
    outcome: 'not-applied',
    status: 200,
    message: /: statusId: is missing$/,
  },
  {
    name: '200 that is not JSON (read)',
    call: 'get',
    behave: (res) => {
      res.writeHead(200);
      res.end('<html>login</html>');
    },
    code: 'BAD_RESPONSE',
    retryable: false,
    outcome: 'not-applied',
  },
  {
    name: '200 collection that is not column-major',
    call: 'collection',
    behave: answer(200, '"rows"'),
    code: 'BAD_RESPONSE',
    retryable: false,
    outcome: 'not-applied',
  },
  { name: 'connection refused (write)', call: 'post', code: 'TRANSIENT', retryable: true, outcome: 'not-applied' },
  { name: 'DNS failure (read)', call: 'get', host: 'no-such-host.invalid', code: 'TRANSIENT', retryable: true, outcome: 'not-applied' },
  {
    name: 'reset before the answer (write)',
    call: 'post',
    behave: (res) => res.socket?.destroy(),
    code: 'TRANSIENT',
    retryable: true,
    outcome: 'uncertain',
  },
  {
    name: 'reset before the answer (read)',
    call: 'get',
    behave: (res) => res.socket?.destroy(),
    code: 'TRANSIENT',
    retryable: true,
    outcome: 'not-applied',
  },
  {
    name: 'no answer before the time-out (write)',
    call: 'post',
    behave: () => undefined,
    code: 'TRANSIENT',
    retryable: true,
    outcome: 'uncertain',
  },
  {
    name: 'no answer before the time-out (read)',
    call: 'get',
    behave: () => undefined,
    code: 'TRANSIENT',
    retryable: true,
    outcome: 'not-applied',
  },
  {
    name: '200 head then the connection drops (write)',
    call: 'post',
    behave: (res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
      res.write('{"orderId":');
      setTimeout(() => res.socket?.destroy(), 20);
    },
    code: 'TRANSIENT',
    retryable: true,
    outcome: 'applied',
  },
];

const ORDER_BODY: CreateOrderBody = {
  orderId: 'WEB-1',
  orderTypeId: 'SALES_ORDER',
  originFacilityUrl: '/demo/api/facility/1',
  orderItemList: [],
};
const SHIPMENT_BODY: CreateShipmentBody = {
  shipmentTypeId: 'SALES_SHIPMENT',
  primaryOrderUrl: '/demo/api/order/WEB-1',
  statusId: 'SHIPMENT_INPUT',
  shipmentItemList: [],
};

function run(client: ServiceClient, call: Call, onCall: (c: ApiCall) => void): Promise<unknown> {
  const o = { onCall };
  if (call === 'get') return client.getOrder(client.entityPath('order', 'WEB 1/x'), o);
  if (call === 'post') return client.createOrder(ORDER_BODY, o);
  if (call === 'action') return client.completeOrder('/demo/api/order/WEB-1/complete', o);
  if (call === 'shipment') return client.createShipment(SHIPMENT_BODY, o);
  if (call === 'ship') return client.modifyShipment('/demo/api/shipment/328966', { statusId: 'SHIPMENT_SHIPPED' }, o);
  return client.listProducts(o);
}

describe('classifying what the service answers', () => {
  let server: TestServer;
  let behave: Behave = () => undefined;
  let deadPort: number;

  beforeAll(async () => {
    server = await startServer((_req, res) => behave(res));
    const dead = await startServer(() => undefined);
    deadPort = dead.port;
    await dead.close();
  });
  afterAll(() => server.close());

  it.each(rows)('$name → $code, retryable $retryable, $outcome', async (row) => {
    behave = row.behave ?? (() => undefined);
    const baseUrl = row.host ? `http://${row.host}:80` : row.behave ? server.url : `http://127.0.0.1:${deadPort}`;
    const client = new ServiceClient({
      baseUrl,
      account: 'demo',
      apiKey: KEY,
      apiSecret: SECRET,
      readRetries: 0,
      entityTimeoutMs: 300,
      collectionTimeoutMs: 300,
    });
    const calls: ApiCall[] = [];
    const started = Date.now();
    const err = await run(client, row.call, (c) => calls.push(c)).then(
      () => undefined,
      (e: unknown) => e,
    );
    await client.close();

    expect(isServiceError(err)).toBe(true);
    const e = err as ServiceError;
    expect({ code: e.code, retryable: e.retryable, outcome: e.outcome }).toEqual({
      code: row.code,
      retryable: row.retryable,
      outcome: row.outcome,
    });
    if (row.status !== undefined) expect(e.status).toBe(row.status);
    if (row.msg !== undefined) expect(e.msg).toBe(row.msg);
    if (row.message) expect(e.message).toMatch(row.message);
    if (row.resetIn !== undefined) expect(Math.abs(e.resetAt! - (started + row.resetIn))).toBeLessThan(2_000);
    // The message says which request and what happened, never the credentials.
    expect(e.message).toContain(`${e.method} ${e.path}`);
    if (e.status) expect(e.message).toContain(String(e.status));
    for (const secret of [KEY, SECRET, BASIC]) {
      expect(JSON.stringify(e.toJSON())).not.toContain(secret);
      expect(e.message).not.toContain(secret);
    }
    // A 403 on a write to an order says the order is completed; keys have no scopes, so no "grant a right".
    if (e.status === 403) expect(e.hint).toMatch(e.code === 'ORDER_COMPLETED' ? /completed/ : /grant/);
    if (e.code === 'ORDER_COMPLETED') expect(e.hint).not.toMatch(/grant/);
    // One request, reported once, with the error code.
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      error: row.code,
      status: row.behave && !row.name.includes('reset before') && !row.name.includes('time-out') ? expect.any(Number) : null,
    });
  });

  it('sends the id of an entity path encoded', async () => {
    behave = (res) => json(res, 404, '');
    const client = new ServiceClient({ baseUrl: server.url, account: 'demo', apiKey: KEY, apiSecret: SECRET, readRetries: 0 });
    await client.getOrder(client.entityPath('order', 'WEB 1/x')).catch(() => undefined);
    await client.close();
    expect(server.seen.at(-1)?.url).toBe('/demo/api/order/WEB%201%2Fx');
    expect(server.seen.at(-1)?.headers.authorization).toBe(`Basic ${BASIC}`);
  });
});
