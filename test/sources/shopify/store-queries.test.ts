import { getOperationAST, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../../src/sandbox/shopify/store-api.js';
import { queryCost } from '../../../src/sandbox/shopify/store-cost.js';
import { ALONE_COST, ORDER_QUERY, ORDERS_QUERY, pageCost, pageSize } from '../../../src/sources/shopify/order-query.js';
import { REGISTER_WEBHOOK, STORE_CHECK, STORE_CHECK_COST } from '../../../src/sources/shopify/store-reads.js';

const costOf = (text: string, vars: Record<string, unknown>) => {
  const doc = parse(text);
  return queryCost(schema, doc, getOperationAST(doc)!, vars);
};

describe("the program's queries against the Admin API's schema (the sandbox store's, written from Shopify's reference)", () => {
  it.each([
    ['orders by updated_at', ORDERS_QUERY],
    ['one order', ORDER_QUERY],
    ['the store check', STORE_CHECK],
    ['a webhook subscription', REGISTER_WEBHOOK],
  ])('%s validates: every field it reads exists with that type', (_name, text) => {
    expect(validate(schema, parse(text)).map((e) => e.message)).toEqual([]);
  });

  it('asks what the program reckons, by the published cost rules, within 1,000 points', () => {
    const first = pageSize(1000);
    expect(costOf(ORDERS_QUERY, { first })).toBe(pageCost(first));
    expect(pageCost(first)).toBeLessThanOrEqual(1000);
    expect(pageCost(first + 1)).toBeGreaterThan(1000);
    expect(costOf(ORDER_QUERY, { id: 'gid://shopify/Order/1' })).toBe(ALONE_COST);
    expect(ALONE_COST).toBeLessThanOrEqual(1000);
    expect(costOf(STORE_CHECK, {})).toBe(STORE_CHECK_COST);
  });
});
