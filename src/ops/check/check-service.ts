import type { Budgets } from '../../../config/read-config.js';
import { isServiceError } from '../../client/answers/errors.js';
import type { FacilityRow, ProductRow } from '../../client/answers/schemas.js';
import type { CallOptions, ServiceApi } from '../../client/service-api.js';
import { findRedisFailure } from '../../redis/errors.js';
import { serviceProblem } from './check-problems.js';
import type { MagazineNode, ServiceCheck } from './check-types.js';

export interface CheckServiceOptions {
  client: ServiceApi;
  baseUrl: string;
  budgets: Budgets;
  /** Called for each request sent (to count them). */
  onRequest?: () => void;
}

/** X-RateLimit-Limit and kin, and the IETF draft's RateLimit-* fields: whatever the service sends. */
const RATE_LIMIT_HEADER = /^(x-)?rate-?limit/i;
/** Product URL examples kept in the report. */
const URL_EXAMPLES = 5;

/**
 * The service as the first run will meet it, by two collection GETs: the facility collection first (a 401, 403 or
 * 404 on it says the credentials or the account are wrong, and nothing else is asked), then the products. A Redis
 * failure on the way (the budget lives there) is thrown as it is.
 */
export async function checkService(o: CheckServiceOptions): Promise<ServiceCheck> {
  const { client } = o;
  let sent: Record<string, string> | null = null;
  const call: CallOptions = {
    onCall: () => o.onRequest?.(),
    onHeaders: (headers) => {
      const picked = rateLimitHeaders(headers);
      if (picked) sent = picked;
    },
  };
  const b = o.budgets;
  const report: ServiceCheck = {
    baseUrl: o.baseUrl,
    account: client.account,
    state: 'ok',
    problem: null,
    facilities: null,
    products: null,
    rateLimit: {
      sent: null,
      budgets: {
        postPerMinute: b.postPerMinute,
        getPerMinute: b.getPerMinute,
        collectionPerHour: b.collectionPerHour,
        requestsPerMinute: b.requestsPerMinute ?? null,
      },
    },
  };
  try {
    report.facilities = facilityTree(await client.listFacilities(call));
    report.products = productFigures(await client.listProducts(call));
  } catch (err) {
    if (!isServiceError(err) || findRedisFailure(err)) throw err;
    Object.assign(report, serviceProblem(err, o.baseUrl, client.account));
  }
  report.rateLimit.sent = sent;
  return report;
}

/** The rate-limit fields of an answer's head, names in lower case; null when it has none. */
export function rateLimitHeaders(headers: Readonly<Record<string, string | string[] | undefined>>): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || !RATE_LIMIT_HEADER.test(name)) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return Object.keys(out).length ? out : null;
}

/** Magazines (no parent) with their locations; a location whose parent is not in the collection is an orphan. */
export function facilityTree(rows: FacilityRow[]): NonNullable<ServiceCheck['facilities']> {
  const nameOf = (f: FacilityRow) => f.facilityName?.trim() || f.facilityId || f.facilityUrl;
  const magazines = new Map<string, MagazineNode>();
  for (const f of rows) if (!f.parentFacilityUrl) magazines.set(f.facilityUrl, { name: nameOf(f), url: f.facilityUrl, locations: [] });
  const orphans: Array<{ name: string; url: string; parentUrl: string }> = [];
  let locations = 0;
  for (const f of rows) {
    if (!f.parentFacilityUrl) continue;
    locations++;
    const parent = magazines.get(f.parentFacilityUrl);
    if (parent) parent.locations.push({ name: nameOf(f), url: f.facilityUrl });
    else orphans.push({ name: nameOf(f), url: f.facilityUrl, parentUrl: f.parentFacilityUrl });
  }
  return { magazines: magazines.size, locations, tree: [...magazines.values()], orphans };
}

/** How many products, active or not, and how many have a URL whose id is not their productId. */
export function productFigures(rows: ProductRow[]): NonNullable<ServiceCheck['products']> {
  let active = 0;
  let inactive = 0;
  const differs: Array<{ productId: string; productUrl: string }> = [];
  for (const p of rows) {
    if (p.statusId === 'PRODUCT_INACTIVE') inactive++;
    else active++;
    if (urlId(p.productUrl) !== p.productId) differs.push({ productId: p.productId, productUrl: p.productUrl });
  }
  return { count: rows.length, active, inactive, urlDiffers: differs.length, urlExamples: differs.slice(0, URL_EXAMPLES) };
}

function urlId(url: string): string {
  const last = url.replace(/\/+$/, '').split('/').at(-1) ?? '';
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}
