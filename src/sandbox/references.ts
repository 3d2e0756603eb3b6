import type { ApiContext } from './api-context.js';
import type { FacilityEntity, ProductEntity } from './sandbox-entities.js';
import { badRequest, missingReference } from './validation.js';

/** Resolvers of the URLs a request names; a missing object is the service's integrity violation. */

export function requireProduct(ctx: ApiContext, url: string, field: string): ProductEntity {
  const p = ctx.store.productByUrl(url);
  if (!p) throw missingReference(`product ${url} (${field})`);
  return p;
}

/** The product at productUrl, whose productId must be the one sent (when one is sent). */
export function requireProductPair(
  ctx: ApiContext,
  item: { productUrl: string; productId?: string | undefined },
  field: string,
): ProductEntity {
  const p = requireProduct(ctx, item.productUrl, `${field}.productUrl`);
  if (item.productId !== undefined && item.productId !== p.productId) {
    throw badRequest(`${field}.productId: ${item.productId} is not the productId of ${item.productUrl} (${p.productId})`);
  }
  return p;
}

export function requireFacility(ctx: ApiContext, url: string, field: string): FacilityEntity {
  const f = ctx.store.facilityByUrl(url);
  if (!f) throw missingReference(`facility ${url} (${field})`);
  return f;
}

/** A facility with a parent: stock lives in locations. */
export function requireLocation(ctx: ApiContext, url: string, field: string): FacilityEntity {
  const f = requireFacility(ctx, url, field);
  if (!f.parentFacilityUrl) {
    throw badRequest(`${field}: ${url} (${f.facilityName}) is a magazine; stock lives in locations, name one of its locations`);
  }
  return f;
}

/** A facility without a parent. */
export function requireMagazine(ctx: ApiContext, url: string, field: string): FacilityEntity {
  const f = requireFacility(ctx, url, field);
  if (f.parentFacilityUrl) {
    const parent = ctx.store.facilityByUrl(f.parentFacilityUrl);
    throw badRequest(
      `${field}: ${url} (${f.facilityName}) is a location, not a magazine; ` +
        `name its magazine ${parent?.facilityUrl ?? f.parentFacilityUrl}${parent ? ` (${parent.facilityName})` : ''}`,
    );
  }
  return f;
}
