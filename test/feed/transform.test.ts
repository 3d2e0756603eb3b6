import { describe, expect, it } from 'vitest';
import { transformPayload, type Transform } from '../../src/feed/transform.js';
import type { TransformFn } from '../../src/records/transform-fn.js';

const as = (fn: TransformFn): Transform => ({ stream: 'orders', name: 'test.mjs', fn });

describe('transformPayload', () => {
  it('passes the payload through as the record when the stream has no transform', async () => {
    expect(await transformPayload(undefined, { orderId: 'A' }, 'wh-1')).toEqual([{ record: { orderId: 'A' }, upstreamId: 'wh-1' }]);
  });

  it('gives each record the transform makes the upstream id and payload, and nothing for null', async () => {
    const split = as((p) => (p as { orders: unknown[] }).orders);
    const entries = await transformPayload(split, { orders: [{ orderId: 'A' }, { orderId: 'B' }] }, 'wh-2');
    expect(entries).toEqual([
      { record: { orderId: 'A' }, upstreamId: 'wh-2', upstream: '{"orders":[{"orderId":"A"},{"orderId":"B"}]}' },
      { record: { orderId: 'B' }, upstreamId: 'wh-2', upstream: '{"orders":[{"orderId":"A"},{"orderId":"B"}]}' },
    ]);
    expect(
      await transformPayload(
        as(() => null),
        { test: true },
        'wh-3',
      ),
    ).toEqual([]);
  });

  it('waits for an async transform', async () => {
    const entries = await transformPayload(
      as(async (p) => ({ orderId: String((p as { n: number }).n) })),
      { n: 7 },
      'x:1',
    );
    expect(entries).toMatchObject([{ record: { orderId: '7' }, upstreamId: 'x:1' }]);
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('no order in it');
      },
      'transform test.mjs failed: no order in it',
    ],
    ['rejects', async () => Promise.reject(new TypeError('bad')), 'transform test.mjs failed: bad'],
    ['returns a string', () => 'ORD-1', 'transform test.mjs returned a string, not a record'],
    [
      'returns nothing',
      () => undefined,
      'transform test.mjs returned nothing (undefined; return null for a payload with nothing to sync), not a record',
    ],
    ['returns an array holding a number', () => [{ orderId: 'A' }, 5], 'transform test.mjs returned a number at [1], not a record'],
  ])('makes one problem, keeping the payload, when it %s', async (_, fn, problem) => {
    const entries = await transformPayload(as(fn as TransformFn), { id: 42 }, 'wh-4');
    expect(entries).toEqual([{ problem, upstreamId: 'wh-4', upstream: '{"id":42}' }]);
  });

  it('keeps at most 4096 characters of a large payload', async () => {
    const [entry] = await transformPayload(
      as(() => {
        throw new Error('x');
      }),
      { text: 'y'.repeat(10_000) },
      'wh-5',
    );
    expect((entry as { upstream: string }).upstream).toHaveLength(4096);
  });
});
