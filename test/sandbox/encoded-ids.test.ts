import { describe, expect, it } from 'vitest';
import { demoData } from '../../src/sandbox/demo-data.js';
import { SANDBOX_PROFILES } from '../../src/sandbox/sandbox-options.js';
import { ODD_KEYS } from '../helpers/odd-keys.js';
import { orderBody, shipmentBody, useSandbox } from './helpers.js';

/** docs/sandbox.md "The API": ids are one segment of a URL, encoded as a web server does, decoded once when routed. */
const data = demoData();
for (const key of ODD_KEYS) data.products!.push({ productId: `P-${key}`, internalName: null, productAssocList: [] });

describe.each(SANDBOX_PROFILES)('ids in URLs (%s profile)', (profile) => {
  const t = useSandbox({ profile, data });

  describe('when an orderId holds characters that mean something in a URL', () => {
    it.each(ODD_KEYS)('%j: its URLs hold it encodeURIComponent-encoded, and each of them reaches it', async (key) => {
      const orderUrl = `/demo/api/order/${encodeURIComponent(key)}`;
      const created = await t.api.ok('order', orderBody(key));
      expect(created).toMatchObject({ orderId: key, orderUrl, actionUrlComplete: `${orderUrl}/complete` });
      expect(created.orderItemList[0].orderItemUrl).toBe(`${orderUrl}/orderItem/00001`);
      expect((await t.api.get(orderUrl)).body.orderId).toBe(key);
      expect((await t.api.get(`${orderUrl}/history/`)).status).toBe(200);
      const shipment = await t.api.ok('shipment', shipmentBody(orderUrl));
      expect(shipment.primaryOrderUrl).toBe(orderUrl);
      expect((await t.api.ok(created.actionUrlComplete)).statusId).toBe('ORDER_COMPLETED');
      expect((await t.api.rows('order')).find((r) => r.orderId === key)?.orderUrl).toBe(orderUrl);
    });
  });

  describe('when a productId holds them', () => {
    it.each(ODD_KEYS)('P-%s: the product is listed at its encoded URL and found there', async (key) => {
      const productUrl = `/demo/api/product/${encodeURIComponent(`P-${key}`)}`;
      expect((await t.api.rows('product')).find((r) => r.productId === `P-${key}`)?.productUrl).toBe(productUrl);
      expect((await t.api.get(productUrl)).body.productId).toBe(`P-${key}`);
    });
  });

  describe('when a path is not the encoded id', () => {
    it('decodes once: the id encoded twice, or a malformed escape, names nothing (404)', async () => {
      await t.api.ok('order', orderBody('50%OFF-5'));
      expect((await t.api.get(`order/${encodeURIComponent('50%25OFF-5')}`)).status).toBe(404);
      expect((await t.api.get('order/50%OFF-5')).status).toBe(404);
      expect((await t.api.get('order/50%25OFF-5')).status).toBe(200);
    });
  });
});
