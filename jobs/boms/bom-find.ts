import type { FindRule } from '../../src/ops/find-rule.js';

/** What `find` shows of a bill of materials: the product it is the bill of. */
export const bomFind: FindRule = {
  entityKinds: ['product'],
  entities: (d) => (typeof d.productUrl === 'string' && d.productUrl ? [{ kind: 'product', url: d.productUrl }] : []),
};
