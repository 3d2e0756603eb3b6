import type { LeftDrift, PlannedRepair, RepairRule } from '../../src/ops/repair-rule.js';

/**
 * `reconcile --repair` of a bill of materials: its job again (it reads the product and replaces the first
 * MANUF_COMPONENT entry by its productAssocUrl, or creates it when there is none: never an extra entry). An extra
 * entry cannot be removed through the API, and a product gone is not the job's to create.
 */
export const bomRepair: RepairRule = {
  plan(drifts) {
    const repairs: PlannedRepair[] = [];
    const left: LeftDrift[] = [];
    for (const d of drifts) {
      if (d.kind === 'bom-differs') repairs.push({ drift: d, what: 'replace the first MANUF_COMPONENT entry (by its productAssocUrl)' });
      else if (d.kind === 'bom-missing' && d.field !== 'product')
        repairs.push({ drift: d, what: 'create the first MANUF_COMPONENT entry' });
      else if (d.kind === 'bom-extra-entries')
        left.push({
          drift: d,
          action: 'by-hand',
          why: 'the API cannot remove an entry: delete the extra MANUF_COMPONENT entries in the web application (builds use the first)',
        });
      else left.push({ drift: d, action: 'by-hand', why: 'the product is gone from the service: recreate it in the web application' });
    }
    return { repairs, left };
  },
};
