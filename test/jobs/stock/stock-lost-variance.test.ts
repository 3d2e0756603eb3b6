import { afterEach, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../../src/client/service-client.js';
import { findLostVariance } from '../../../jobs/stock/settle-variance.js';
import { columns, json, startServer, type TestServer } from '../../client/http-server.js';

const A01 = '/acme/api/facility/11';
const A02 = '/acme/api/facility/12';
const MUG = '/acme/api/product/10000';
const SET = '/acme/api/product/10007';
const DATE = '2026-11-21T19:00:00.000';

/** Variances as the service has them: the lines are only on the entity, not on the collection rows. */
const LINES: Record<string, Array<{ productUrl: string; quantityOnHandVar: number }>> = {
  '328966': [{ productUrl: MUG, quantityOnHandVar: 5 }],
  '328967': [
    { productUrl: SET, quantityOnHandVar: -1 },
    { productUrl: MUG, quantityOnHandVar: 3 },
  ],
  '328968': [
    { productUrl: SET, quantityOnHandVar: -1 },
    { productUrl: MUG, quantityOnHandVar: 3 },
  ],
};

/** A service whose variance rows carry no physicalInventoryUrl, with the id as `idForm` makes it. */
async function serviceWithRows(idForm: (id: number) => unknown): Promise<TestServer> {
  const rows = [
    { physicalInventoryId: idForm(328966), facilityUrl: A01, physicalInventoryDate: DATE, statusId: 'PHSCL_INV_COMMITTED' },
    { physicalInventoryId: idForm(328967), facilityUrl: A01, physicalInventoryDate: DATE, statusId: 'PHSCL_INV_COMMITTED' },
    { physicalInventoryId: idForm(328968), facilityUrl: A02, physicalInventoryDate: DATE, statusId: 'PHSCL_INV_COMMITTED' },
  ];
  return startServer((req, res) => {
    if (req.url === '/acme/api/inventoryvariance') return json(res, 200, columns(rows));
    const id = /^\/acme\/api\/inventoryvariance\/(\d+)$/.exec(req.url ?? '')?.[1];
    if (id && LINES[id])
      return json(res, 200, { physicalInventoryId: Number(id), physicalInventoryUrl: req.url, inventoryItemVarianceList: LINES[id] });
    json(res, 404, { msg: 'not found' });
  });
}

describe('finding a variance whose answer was lost', () => {
  let server: TestServer;
  let client: ServiceClient;
  afterEach(async () => {
    await client.close();
    await server.close();
  });

  describe.each([
    ['JSON numbers (as the real service answers them)', (id: number) => id],
    ['strings', (id: number) => String(id)],
  ])('when the collection rows give the ids as %s and no URL', (_form, idForm) => {
    const lost = {
      facilityUrl: A01,
      countDate: '2026-11-21',
      lines: [
        [MUG, 3],
        [SET, -1],
      ] as Array<[string, number]>,
    };

    it('finds it by its lines at the location and date, reading the candidates by their ids', async () => {
      server = await serviceWithRows(idForm);
      client = new ServiceClient({ baseUrl: server.url, account: 'acme', apiKey: 'k', apiSecret: 's' });
      expect(await findLostVariance(client, { ...lost, known: new Set() })).toBe('/acme/api/inventoryvariance/328967');
      expect(server.seen.map((r) => r.url)).toEqual([
        '/acme/api/inventoryvariance',
        '/acme/api/inventoryvariance/328966',
        '/acme/api/inventoryvariance/328967',
      ]);
    });

    it('never takes a variance already accounted for', async () => {
      server = await serviceWithRows(idForm);
      client = new ServiceClient({ baseUrl: server.url, account: 'acme', apiKey: 'k', apiSecret: 's' });
      expect(await findLostVariance(client, { ...lost, known: new Set(['/acme/api/inventoryvariance/328967']) })).toBeUndefined();
      expect(server.seen.map((r) => r.url)).not.toContain('/acme/api/inventoryvariance/328967');
    });
  });
});
