import { positiveInt } from '../../config/setting-rules.js';
import { defineKind } from '../../src/kinds/kind.js';
import { bomFind } from './bom-find.js';
import { bomPreview } from './bom-preview.js';
import { bomRecordSchema } from './bom-record.js';
import { bomReferences } from './bom-references.js';
import { syncBom } from './bom-sync.js';
import { bomReconcile } from './reconcile-boms.js';
import { bomRepair } from './repair-boms.js';

/**
 * The bills of materials (docs/records.md `boms`): one product's bill per record, named by its productId, synced as
 * the product's first MANUF_COMPONENT entry (docs/boms.md). The whole kind; its line is in jobs/kinds.ts.
 */
export const bomKind = defineKind({
  stream: 'boms',
  record: { keyField: 'productId', schema: bomRecordSchema, references: bomReferences },
  settings: {
    BOM_POLL_SECONDS: { rule: positiveInt('BOM_POLL_SECONDS'), default: 60, doc: 'Seconds between polls of the BOM feed in `worker`.' },
  },
  feed: { scheduler: 'poll-boms', pull: (s) => ({ every: s.bomPollSeconds }), lag: 'polled' },
  job: { process: syncBom, preview: bomPreview },
  ops: { find: bomFind, reconcile: bomReconcile, repair: bomRepair },
});
