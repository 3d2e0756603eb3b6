import { afterEach, describe, expect, it } from 'vitest';
import { readStockOnHand } from '../../src/catalog/stock-on-hand.js';
import { ServiceClient } from '../../src/client/service-client.js';
import { columns, json, startServer, type TestServer } from '../client/http-server.js';

const A01 = '/acme/api/facility/11';
const A02 = '/acme/api/facility/12';
const MUG = '/acme/api/product/10000';
const SET = '/acme/api/product/10007';

describe('readStockOnHand', () => {
  let server: TestServer;
  let client: ServiceClient;
  afterEach(async () => {
    await client.close();
    await server.close();
  });

  describe('when a (location, product) pair spans several lots and packings', () => {
    it('sums quantityOnHand over its rows, per location and product, with one collection GET', async () => {
      const rows = [
        { facilityUrl: A01, productUrl: MUG, productId: 'MUG-BLUE', quantityOnHand: 10, lotId: 'L1', quantityReserved: 2 },
        { facilityUrl: A01, productUrl: MUG, productId: 'MUG-BLUE', quantityOnHand: 5, lotId: 'L2', normalizedPackingString: 'BOX6' },
        { facilityUrl: A01, productUrl: SET, productId: 'GIFT-SET', quantityOnHand: 1 },
        { facilityUrl: A02, productUrl: MUG, productId: 'MUG-BLUE', quantityOnHand: -2, lotId: 'L1' },
        { facilityUrl: A02, productUrl: MUG, productId: 'MUG-BLUE', quantityOnHand: 7.5 },
        { facilityUrl: A02, productUrl: SET, productId: 'GIFT-SET', quantityOnHand: null, quantityOnOrder: 4 },
      ];
      server = await startServer((req, res) =>
        req.url === '/acme/api/inventoryitem' ? json(res, 200, columns(rows)) : json(res, 404, ''),
      );
      client = new ServiceClient({ baseUrl: server.url, account: 'acme', apiKey: 'k', apiSecret: 's' });

      const stock = await readStockOnHand(client);
      expect(stock).toEqual(
        new Map([
          [
            A01,
            new Map([
              [MUG, 15],
              [SET, 1],
            ]),
          ],
          [
            A02,
            new Map([
              [MUG, 5.5],
              [SET, 0],
            ]),
          ],
        ]),
      );
      expect(server.seen).toHaveLength(1);
    });
  });
});
