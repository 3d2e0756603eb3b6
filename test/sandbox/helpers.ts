import { request } from 'undici';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import type { SandboxOptions } from '../../src/sandbox/sandbox-options.js';

/** Plain HTTP against a sandbox, independent of the project's service client. */
export interface Answer {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

export interface CallOptions {
  /** Authorization header value; null sends none. Default: Basic of the sandbox's key and secret. */
  auth?: string | null;
  /** A raw body text instead of JSON. */
  raw?: string;
  signal?: AbortSignal;
}

export const basic = (key: string, secret: string) => `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;

export class Api {
  constructor(readonly sb: Sandbox) {}

  /** '/demo/api/x' as is; 'x' becomes '/{account}/api/x'. */
  path(p: string): string {
    return p.startsWith('/') ? p : `/${this.sb.account}/api/${p}`;
  }

  async call(method: string, p: string, body?: unknown, o: CallOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const auth = o.auth === undefined ? basic(this.sb.key, this.sb.secret) : o.auth;
    if (auth !== null) headers.authorization = auth;
    const res = await request(`${this.sb.url}${this.path(p)}`, {
      method: method as 'GET',
      headers,
      body: o.raw ?? (body === undefined ? undefined : JSON.stringify(body)),
      signal: o.signal,
    });
    const text = await res.body.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* keep the text */
    }
    return { status: res.statusCode, body: parsed, headers: res.headers };
  }

  get(p: string, o?: CallOptions) {
    return this.call('GET', p, undefined, o);
  }

  post(p: string, body: unknown = {}, o?: CallOptions) {
    return this.call('POST', p, body, o);
  }

  /** A POST that must answer 200: its body. */
  async ok(p: string, body: unknown = {}) {
    const a = await this.post(p, body);
    if (a.status !== 200) throw new Error(`POST ${p} answered ${a.status}: ${JSON.stringify(a.body)}`);
    return a.body;
  }

  /** A collection GET decoded into rows (sized by the longest column; a missing cell is absent). */
  async rows(collection: string): Promise<Array<Record<string, unknown>>> {
    const a = await this.get(collection);
    if (a.status !== 200) throw new Error(`GET ${collection} answered ${a.status}`);
    return decodeRows(a.body);
  }
}

export function decodeRows(body: Record<string, unknown[]>): Array<Record<string, unknown>> {
  const cols = Object.entries(body);
  const n = Math.max(0, ...cols.map(([, v]) => v.length));
  return Array.from({ length: n }, (_, i) => {
    const row: Record<string, unknown> = {};
    for (const [k, v] of cols) if (i < v.length && v[i] !== null) row[k] = v[i];
    return row;
  });
}

/** One sandbox per test file, reset before each test. */
export function useSandbox(options: SandboxOptions = {}): { sb: Sandbox; api: Api } {
  const ctx = {} as { sb: Sandbox; api: Api };
  beforeAll(async () => {
    ctx.sb = await startSandbox(options);
    ctx.api = new Api(ctx.sb);
  });
  afterAll(async () => ctx.sb?.close());
  beforeEach(() => ctx.sb.admin.reset());
  return ctx;
}

/** Demo data (src/sandbox/demo-data.ts). */
export const demo = {
  main: '/demo/api/facility/10000',
  a01: '/demo/api/facility/10001',
  a02: '/demo/api/facility/10002',
  north: '/demo/api/facility/20000',
  n01: '/demo/api/facility/20001',
  mugBlue: '/demo/api/product/MUG-BLUE',
  mugRed: '/demo/api/product/20002',
  giftSet: '/demo/api/product/20004',
  sku1: '/demo/api/product/SKU-0001',
  sku3: '/demo/api/product/10003',
};

export const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

export function orderBody(orderId: string, over: Record<string, unknown> = {}) {
  return {
    orderId,
    orderTypeId: 'SALES_ORDER',
    originFacilityUrl: demo.main,
    orderItemList: [
      { productId: 'MUG-BLUE', productUrl: demo.mugBlue, unitPrice: 12.5, quantity: 2 },
      { productId: 'SKU-0003', productUrl: demo.sku3, unitPrice: 3.1, quantity: 3 },
    ],
    ...over,
  };
}

export function shipmentBody(orderUrl: string, over: Record<string, unknown> = {}) {
  return {
    shipmentTypeId: 'SALES_SHIPMENT',
    primaryOrderUrl: orderUrl,
    statusId: 'SHIPMENT_INPUT',
    shipmentIdUser: 'user-name-1',
    shipmentItemList: [
      { facilityUrl: demo.a01, productId: 'MUG-BLUE', productUrl: demo.mugBlue, quantity: 2 },
      { facilityUrl: demo.a01, productId: 'MUG-RED', productUrl: demo.mugRed, quantity: 1 },
    ],
    ...over,
  };
}

export function varianceBody(over: Record<string, unknown> = {}) {
  return {
    physicalInventoryDate: '2026-11-21T19:00:00.000',
    statusId: 'PHSCL_INV_COMMITTED',
    physicalInventoryTypeId: 'FACILITY',
    facilityUrl: demo.a01,
    inventoryItemVarianceList: [{ facilityUrl: demo.a01, productUrl: demo.mugBlue, quantityOnHandVar: 5 }],
    ...over,
  };
}

/** Creates an order and its shipment; answers both entities. */
export async function orderWithShipment(api: Api, orderId: string, shipmentOver: Record<string, unknown> = {}) {
  const order = await api.ok('order', orderBody(orderId));
  const shipment = await api.ok('shipment/', shipmentBody(order.orderUrl, shipmentOver));
  return { order, shipment };
}

export const INTEGRITY_DUPLICATE = 'Database integrity violation: duplicate object: ';
export const INTEGRITY_MISSING = 'Database integrity violation: reference to an object that does not exist: ';
