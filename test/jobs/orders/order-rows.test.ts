import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceOrders, serviceShipments } from '../../../jobs/orders/order-rows.js';
import { ServiceClient } from '../../../src/client/service-client.js';
import { ServiceView } from '../../../src/ops/reconcile-service.js';
import { columns, json, startServer, type TestServer } from '../../client/http-server.js';

/** Collections as integrators report the real service answering them: numeric ids, nulls, ragged columns. */
const ORDERS = columns([
  {
    orderId: 'WEB-1',
    orderUrl: '/demo/api/order/WEB-1',
    statusId: 'ORDER_COMPLETED',
    originFacilityUrl: '/demo/api/facility/10000',
    orderItemListTotal: 25,
    shipmentUrlList: null,
  },
  { orderId: 1002, orderUrl: '/demo/api/order/1002', statusId: null, originFacilityUrl: null, orderItemListTotal: '12.5' },
  { orderId: 'WEB-3', orderUrl: '/demo/api/order/WEB-3' },
]);
const SHIPMENTS = columns([
  {
    shipmentId: 328966,
    shipmentIdUser: null,
    shipmentUrl: '/demo/api/shipment/328966',
    primaryOrderUrl: '/demo/api/order/WEB-1',
    statusId: 'SHIPMENT_SHIPPED',
    transferList: null,
  },
  { shipmentId: 'S-2', shipmentUrl: '/demo/api/shipment/S-2' },
]);

describe('reconcile reading the service', () => {
  let server: TestServer;
  let client: ServiceClient;
  beforeAll(async () => {
    server = await startServer((req, res) => json(res, 200, req.url?.includes('/shipment') ? SHIPMENTS : ORDERS));
    client = new ServiceClient({ baseUrl: server.url, account: 'demo', apiKey: 'k', apiSecret: 's' });
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  describe('when rows carry numeric ids, nulls and short columns', () => {
    it('reads every row, ids as text, and leaves out what is absent', async () => {
      const view = new ServiceView(client);
      expect(await serviceOrders(view)).toEqual([
        {
          orderId: 'WEB-1',
          orderUrl: '/demo/api/order/WEB-1',
          statusId: 'ORDER_COMPLETED',
          originFacilityUrl: '/demo/api/facility/10000',
          orderItemListTotal: 25,
        },
        { orderId: '1002', orderUrl: '/demo/api/order/1002', statusId: undefined, originFacilityUrl: undefined, orderItemListTotal: 12.5 },
        {
          orderId: 'WEB-3',
          orderUrl: '/demo/api/order/WEB-3',
          statusId: undefined,
          originFacilityUrl: undefined,
          orderItemListTotal: undefined,
        },
      ]);
      expect((await serviceShipments(view)).map((s) => [s.shipmentId, s.shipmentIdUser, s.primaryOrderUrl, s.statusId])).toEqual([
        ['328966', undefined, '/demo/api/order/WEB-1', 'SHIPMENT_SHIPPED'],
        ['S-2', undefined, undefined, undefined],
      ]);
    });

    it('reads each collection once however often it is asked, and counts the cost', async () => {
      const view = new ServiceView(client);
      const before = server.seen.length;
      await Promise.all([serviceOrders(view), serviceOrders(view), serviceShipments(view)]);
      await serviceOrders(view);
      expect(server.seen.length - before).toBe(2);
      expect(view.calls).toEqual({ collection: 2, get: 0 });
    });
  });
});
