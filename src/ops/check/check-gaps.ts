import type { FacilityKind } from '../../records/record-references.js';
import type { StreamName } from '../../records/stream-name.js';
import type { CatalogApi, CatalogProduct, FacilityLookup } from '../../catalog/types.js';
import type { NamedRecord } from './check-feed.js';
import type { CheckReport, MappingGap } from './check-types.js';

/** Record keys kept per gap. */
const EXAMPLES = 3;

type Finding = Omit<MappingGap, 'records' | 'streams' | 'examples'>;

/**
 * Every product and facility the records name that the catalog cannot resolve, or resolves to the wrong kind of
 * facility, with how many records name it. Resolution goes through the catalog the jobs use (a mapping it
 * applies applies here too); all lookups at once, so a miss refreshes the catalog at most once.
 */
export async function findGaps(
  catalog: CatalogApi,
  records: NamedRecord[],
): Promise<{ gaps: MappingGap[]; mapped: CheckReport['mapped'] }> {
  const productIds = [...new Set(records.flatMap((r) => r.references.products))];
  const facilityKeys = [...new Set(records.flatMap((r) => r.references.facilities.map((f) => facilityKey(f.name, f.want))))];
  const [products, lookups] = await Promise.all([
    productIds.length ? catalog.products(productIds) : Promise.resolve(new Map<string, CatalogProduct>()),
    Promise.all(facilityKeys.map(async (k) => [k, await catalog.facility(splitKey(k).name)] as const)),
  ]);
  const findings = new Map<string, Finding>();
  for (const id of productIds) {
    if (!products.has(id))
      findings.set(productKey(id), {
        what: 'product',
        name: id,
        ...mappedTo(catalog, 'product', id),
        problem: 'unknown',
        want: null,
        candidates: [],
      });
  }
  for (const [k, lookup] of lookups) {
    const finding = facilityFinding(splitKey(k).name, splitKey(k).want, lookup);
    if (finding) findings.set(k, { ...finding, ...mappedTo(catalog, 'facility', finding.name) });
  }

  const gaps = new Map<string, MappingGap>();
  const mapped = new Map<string, CheckReport['mapped'][number]>();
  for (const r of records) {
    const keys = new Set([...r.references.products.map(productKey), ...r.references.facilities.map((f) => facilityKey(f.name, f.want))]);
    for (const k of keys) {
      const finding = findings.get(k);
      if (finding) count(gaps, k, finding, r.stream, r.key);
    }
    const names = [
      ...[...new Set(r.references.products)].map((name) => ({ what: 'product' as const, name, to: catalog.mapped?.('product', name) })),
      ...[...new Set(r.references.facilities.map((f) => f.name))].map((name) => ({
        what: 'facility' as const,
        name,
        to: catalog.mapped?.('facility', name),
      })),
    ];
    for (const { what, name, to } of names) {
      if (to === undefined || to === name) continue;
      const m = mapped.get(`${what}\u0000${name}`) ?? { what, name, to, records: 0 };
      m.records++;
      mapped.set(`${what}\u0000${name}`, m);
    }
  }
  const byCount = <T extends { records: number; name: string }>(a: T, b: T) => b.records - a.records || a.name.localeCompare(b.name);
  return { gaps: [...gaps.values()].sort(byCount), mapped: [...mapped.values()].sort(byCount) };
}

function mappedTo(catalog: CatalogApi, kind: 'product' | 'facility', name: string): { mappedTo?: string } {
  const to = catalog.mapped?.(kind, name);
  return to === undefined ? {} : { mappedTo: to };
}

function facilityFinding(name: string, want: FacilityKind, lookup: FacilityLookup): Finding | undefined {
  if (!lookup.ok) return { what: 'facility', name, problem: lookup.reason, want, candidates: lookup.candidates ?? [] };
  if (lookup.facility.kind === want) return undefined;
  const problem = want === 'magazine' ? 'not-a-magazine' : 'not-a-location';
  return {
    what: 'facility',
    name,
    problem,
    want,
    candidates: [`${lookup.facility.path} (${lookup.facility.kind}, ${lookup.facility.facilityUrl})`],
  };
}

function count(gaps: Map<string, MappingGap>, k: string, finding: Finding, stream: StreamName, key: string): void {
  const gap = gaps.get(k) ?? { ...finding, records: 0, streams: [], examples: [] };
  gap.records++;
  if (!gap.streams.includes(stream)) gap.streams.push(stream);
  if (gap.examples.length < EXAMPLES) gap.examples.push(key);
  gaps.set(k, gap);
}

const productKey = (id: string) => `p\u0000${id}`;
const facilityKey = (name: string, want: FacilityKind) => `f\u0000${want}\u0000${name}`;

function splitKey(k: string): { name: string; want: FacilityKind } {
  const [, want, name] = k.split('\u0000') as [string, FacilityKind, string];
  return { name, want };
}
