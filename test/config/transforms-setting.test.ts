import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/read-config.js';
import { parseTransforms } from '../../config/transforms-setting.js';
import { loadTransforms } from '../../src/feed/load-transforms.js';

describe('the TRANSFORMS setting', () => {
  const dir = mkdtempSync(join(tmpdir(), 'isync-transforms-'));
  const module = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const kinds = [
    { stream: 'orders', record: { transforms: { 'shop-a': () => null } } },
    { stream: 'boms', record: {} },
  ];

  it('reads stream=spec pairs, a module by its path', () => {
    const file = module('ok.mjs', 'export default (p) => p;\n');
    expect(parseTransforms(` orders=shop-a , boms=${file} `)).toEqual({
      settings: [
        { stream: 'orders', spec: 'shop-a', module: false },
        { stream: 'boms', spec: file, module: true },
      ],
      problems: [],
    });
  });

  it('names each problem of its form and files on a line of its own', () => {
    expect(parseTransforms('orders, boms=a, boms=b, orders=/no/such.mjs, stock-counts=t.ts').problems).toEqual([
      'TRANSFORMS: "orders" is not stream=transform (a built-in transform\'s name or an ES module\'s path)',
      'TRANSFORMS: boms is given a transform twice; one per stream',
      'TRANSFORMS: orders: /no/such.mjs: no such file',
      'TRANSFORMS: stock-counts: t.ts must be an ES module file (.mjs or .js)',
    ]);
  });

  it('loads built-ins and modules, and refuses an unknown stream or name and a module without a function', async () => {
    const good = module('good.mjs', 'export default (p) => ({ productId: p.sku, components: [] });\n');
    const loaded = await loadTransforms(parseTransforms(`orders=shop-a,boms=${good}`).settings, kinds);
    expect([...loaded.keys()]).toEqual(['orders', 'boms']);
    expect(await loaded.get('boms')!.fn({ sku: 'S' }, { stream: 'boms', upstreamId: '1' })).toEqual({ productId: 'S', components: [] });

    const noFn = module('no-fn.mjs', 'export const transform = () => null;\n');
    const broken = module('broken.mjs', 'export default (;\n');
    const err = await loadTransforms(
      [
        { stream: 'invoices', spec: 'x', module: false },
        { stream: 'orders', spec: 'shop-b', module: false },
        { stream: 'boms', spec: 'shop-a', module: false },
        { stream: 'orders', spec: noFn, module: true },
        { stream: 'boms', spec: broken, module: true },
      ],
      kinds,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems;
    expect(problems.slice(0, 4)).toEqual([
      'TRANSFORMS: unknown stream "invoices": use one of orders, boms',
      'TRANSFORMS: orders: no transform named "shop-b" (built in: shop-a)',
      'TRANSFORMS: boms: no transform named "shop-a" (boms has none built in; name an ES module (.mjs or .js))',
      `TRANSFORMS: orders: ${noFn} has no default export that is a function (payload, context) => record(s)`,
    ]);
    expect(problems[4]).toMatch(/^TRANSFORMS: boms: .*broken\.mjs could not be loaded \(/);
    expect(problems).toHaveLength(5);
  });
});
