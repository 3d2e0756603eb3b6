import { NotFoundError } from '../../src/client/answers/errors.js';
import type { CatalogApi } from '../../src/catalog/types.js';
import { bomItemsOf, sameBom, type BomItems } from './bom-items.js';
import { resolveBom } from './resolve-bom.js';
import { bomRecordSchema } from './bom-record.js';
import { PermanentJobError } from '../../src/queue/job-errors.js';
import type { SyncedRecord } from '../../src/ops/reconcile-synced.js';
import type { ServiceView } from '../../src/ops/reconcile-service.js';
import type { Drift, Unchecked } from '../../src/ops/reconcile-types.js';
import type { ReconcileRule } from '../../src/ops/reconcile-rule.js';

async function describe(items: BomItems, catalog: CatalogApi): Promise<string> {
  const parts = await Promise.all([...items].map(async ([url, q]) => `${(await catalog.productIdByUrl(url)) ?? url} x ${q}`));
  return parts.sort().join(', ') || 'no components';
}

/**
 * Each synced bill of materials against its product (one GET each: collection rows carry no productAssocList): the
 * first MANUF_COMPONENT entry must list the record's components, and there must be no other MANUF_COMPONENT entry.
 */
export async function reconcileBoms(
  boms: Map<string, SyncedRecord>,
  catalog: CatalogApi,
  view: ServiceView,
  unchecked: Unchecked[],
): Promise<{ drifts: Drift[]; boms: number }> {
  const drifts: Drift[] = [];
  let checked = 0;
  for (const s of boms.values()) {
    const parsed = bomRecordSchema.safeParse(s.record);
    if (!parsed.success) continue;
    let resolved;
    try {
      resolved = await resolveBom(catalog, parsed.data);
    } catch (err) {
      if (!(err instanceof PermanentJobError)) throw err;
      unchecked.push({ stream: 'boms', key: s.key, reason: err.message });
      continue;
    }
    const url = resolved.product.productUrl;
    const base = { stream: 'boms' as const, key: s.key, jobId: s.jobId, url };
    let product;
    try {
      product = await view.call((client, opts) => client.getProduct(url, opts));
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      drifts.push({ ...base, kind: 'bom-missing', field: 'product', service: 'none (404)', synced: `product ${s.key}` });
      continue;
    }
    checked++;
    const entries = product.productAssocList.filter((a) => a.productAssocTypeId === 'MANUF_COMPONENT');
    const wanted = await describe(resolved.items, catalog);
    if (entries.length === 0) {
      drifts.push({ ...base, kind: 'bom-missing', field: 'productAssocList (MANUF_COMPONENT)', service: 'no entry', synced: wanted });
      continue;
    }
    const first = bomItemsOf(entries[0]!);
    if (!sameBom(first, resolved.items)) {
      drifts.push({
        ...base,
        kind: 'bom-differs',
        field: 'first MANUF_COMPONENT entry',
        service: await describe(first, catalog),
        synced: wanted,
        url: entries[0]!.productAssocUrl ?? url,
      });
    }
    if (entries.length > 1) {
      const extra = entries
        .slice(1)
        .map((e) => e.productAssocUrl ?? '(no URL)')
        .join(', ');
      drifts.push({
        ...base,
        kind: 'bom-extra-entries',
        field: 'productAssocList (MANUF_COMPONENT entries)',
        service: `${entries.length}: extra ${extra}`,
        synced: '1',
      });
    }
  }
  return { drifts, boms: checked };
}

/** `reconcile` of the bills of materials: each synced BOM against its product's MANUF_COMPONENT entries. */
export const bomReconcile: ReconcileRule = {
  counts: ['boms'],
  describe: (c) => `${c.boms} BOMs`,
  async run(ctx) {
    const r = await reconcileBoms(await ctx.synced(ctx.stream), ctx.catalog, ctx.view, ctx.unchecked);
    return { drifts: r.drifts, checked: { boms: r.boms } };
  },
};
