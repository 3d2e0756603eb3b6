import type { EntityRef, FindRule } from '../../src/ops/find-rule.js';
import { loadProgress } from './count-progress.js';

/** What `find` shows of a stock count: its variances, from the jobs' results and the progress in Redis. */
export const countFind: FindRule = {
  entityKinds: ['variance'],
  entities(d) {
    const out: EntityRef[] = [];
    if (Array.isArray(d.variances)) for (const v of d.variances) if (typeof v === 'string' && v) out.push({ kind: 'variance', url: v });
    return out;
  },
  async progress(redis, keys, key) {
    const p = await loadProgress(redis, keys, key);
    if (!p.state) return undefined;
    const variances = [...p.applied.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, url]) => url)
      .filter(Boolean);
    const leftToNewer = [...p.left.values()].map((l) => ({ productId: l.productId, countId: l.countId }));
    const value = { state: p.state, facilityUrl: p.facilityUrl ?? null, countDate: p.countDate ?? null, variances, leftToNewer };
    const left = leftToNewer.length ? `; left to newer counts: ${leftToNewer.map((l) => `${l.productId} (${l.countId})`).join(', ')}` : '';
    const on = p.countDate ? ` on ${p.countDate}` : '';
    const line = `Count progress: ${p.state}${on}${p.facilityUrl ? ` at ${p.facilityUrl}` : ''}${left}`;
    return { name: 'count', value, line, entities: variances.map((url) => ({ kind: 'variance', url })) };
  },
};
