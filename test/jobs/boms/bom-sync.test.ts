import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachProfile, jobOf, testWorld, type TestWorld } from '../../helpers/test-world.js';

const bom = (productId: string, components: Array<[string, number]>) => ({
  productId,
  components: components.map(([id, quantity]) => ({ productId: id, quantity })),
});

describeEachProfile('BOM sync', (profile) => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await testWorld('bom-sync', { streams: ['stock-counts', 'boms'], sandbox: { profile } });
    await world.deps.catalog.refresh();
  });
  afterAll(async () => {
    await world?.close();
  });

  const entries = (productId: string) => world.sandbox.admin.state().products.find((p) => p.productId === productId)!.productAssocList;
  const items = (productId: string, n = 0) =>
    entries(productId)
      [n]!.productAssocItemList.map((i) => [i.productUrl, i.quantity])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  const want = (components: Array<[string, number]>) =>
    components.map(([id, q]) => [world.product(id), q]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  const posts = async (productId: string) =>
    (await world.traces('boms', String((await jobOf(world, 'boms', productId)).id)))
      .flatMap((t) => t.calls)
      .filter((c) => c.method === 'POST');

  /** The product as the service answers it, untouched by the client's schemas. */
  const answered = async (productId: string) => {
    const { sandbox } = world;
    const res = await fetch(`${sandbox.url}${world.product(productId)}`, {
      headers: { authorization: `Basic ${Buffer.from(`${sandbox.key}:${sandbox.secret}`).toString('base64')}` },
    });
    return (await res.json()) as { productAssocList: unknown };
  };

  describe('when the product has no bill of materials yet', () => {
    const components: Array<[string, number]> = [
      ['SKU-0001', 2],
      ['SKU-0003', 1],
    ];
    beforeAll(async () => {
      expect(entries('SPARE-PARTS')).toHaveLength(0);
      // The observed service answers an empty list as null.
      expect((await answered('SPARE-PARTS')).productAssocList).toEqual(profile === 'observed' ? null : []);
      await world.add('boms', [bom('SPARE-PARTS', components)]);
      await world.idle();
    });

    it('creates exactly one MANUF_COMPONENT entry with the components', async () => {
      expect(entries('SPARE-PARTS')).toHaveLength(1);
      expect(entries('SPARE-PARTS')[0]!.productAssocTypeId).toBe('MANUF_COMPONENT');
      expect(items('SPARE-PARTS')).toEqual(want(components));
      expect((await jobOf(world, 'boms', 'SPARE-PARTS')).returnvalue.details?.action).toBe('created');
    });
  });

  describe('when the product has a bill of materials', () => {
    const components: Array<[string, number]> = [
      ['MUG-BLUE', 3],
      ['MUG-GREEN', 1],
    ];
    let assocUrl: string;
    beforeAll(async () => {
      assocUrl = entries('GIFT-SET')[0]!.productAssocUrl;
      await world.add('boms', [bom('GIFT-SET', components)]);
      await world.idle();
    });

    it('replaces the items of that entry, by its productAssocUrl, without adding an entry', () => {
      expect(entries('GIFT-SET')).toHaveLength(1);
      expect(entries('GIFT-SET')[0]!.productAssocUrl).toBe(assocUrl);
      expect(items('GIFT-SET')).toEqual(want(components));
    });

    describe('and the same bill comes again (components in another order)', () => {
      it('costs no write', async () => {
        const updates = world.sandbox.admin.counters().productUpdates;
        await world.add('boms', [
          bom('GIFT-SET', [
            ['MUG-GREEN', 1],
            ['MUG-BLUE', 3],
          ]),
        ]);
        await world.idle();
        expect(world.sandbox.admin.counters().productUpdates).toBe(updates);
        const jobs = (await world.jobs('boms')).filter((j) => (j.data.record as { productId: string }).productId === 'GIFT-SET');
        expect(jobs).toHaveLength(2);
        const repeat = jobs.find(
          (j) => (j.data.record as { components: Array<{ productId: string }> }).components[0]!.productId === 'MUG-GREEN',
        )!;
        expect(repeat.returnvalue.outcome).toBe('unchanged');
        const trace = await world.traces('boms', String(repeat.id));
        expect(trace.flatMap((t) => t.calls).filter((c) => c.method === 'POST')).toHaveLength(0);
      });
    });
  });

  describe('when the product has an extra entry after its first', () => {
    it('updates only the first entry and leaves the extra one as it was', async () => {
      const kit = world.product('KIT-CAMPING');
      await world.client.updateProduct(kit, {
        productId: 'KIT-CAMPING',
        productUrl: kit,
        productAssocList: [
          { productAssocTypeId: 'MANUF_COMPONENT', productAssocItemList: [{ productUrl: world.product('SKU-0099'), quantity: 9 }] },
        ],
      });
      expect(entries('KIT-CAMPING')).toHaveLength(2);
      await world.add('boms', [
        bom('KIT-CAMPING', [
          ['SKU-0020', 2],
          ['SKU-0021', 1],
        ]),
      ]);
      await world.idle();
      expect(entries('KIT-CAMPING')).toHaveLength(2);
      expect(items('KIT-CAMPING')).toEqual(
        want([
          ['SKU-0020', 2],
          ['SKU-0021', 1],
        ]),
      );
      expect(items('KIT-CAMPING', 1)).toEqual(want([['SKU-0099', 9]]));
    });
  });

  describe('when a component is unknown', () => {
    it('fails at once with a message naming the component field', async () => {
      const updates = world.sandbox.admin.counters().productUpdates;
      await world.add('boms', [
        bom('KIT-OFFICE', [
          ['SKU-0010', 1],
          ['NO-SUCH-PART', 2],
        ]),
      ]);
      await world.idle();
      const job = await jobOf(world, 'boms', 'KIT-OFFICE');
      expect(job.failedReason).toBe(
        "[BAD_RECORD] record KIT-OFFICE: components.1.productId: unknown component: no product NO-SUCH-PART in the service's product collection",
      );
      expect(job.attemptsMade).toBe(1);
      expect(world.sandbox.admin.counters().productUpdates).toBe(updates);
    });
  });

  describe('when the answer to the first entry create is lost', () => {
    it('still leaves exactly one entry', async () => {
      world.sandbox.admin.setFaults([{ kind: 'apply-then-drop', method: 'POST', path: '/api/product/', times: 1 }]);
      expect(entries('MUG-GREEN')).toHaveLength(0);
      await world.add('boms', [bom('MUG-GREEN', [['SKU-0030', 1]])]);
      await world.idle();
      world.sandbox.admin.setFaults([]);
      expect(world.sandbox.admin.counters().faults['apply-then-drop']).toBe(1);
      expect(entries('MUG-GREEN')).toHaveLength(1);
      expect(items('MUG-GREEN')).toEqual(want([['SKU-0030', 1]]));
      expect((await jobOf(world, 'boms', 'MUG-GREEN')).returnvalue.outcome).toBe('synced');
      expect(await posts('MUG-GREEN')).toHaveLength(1);
    });
  });
});
