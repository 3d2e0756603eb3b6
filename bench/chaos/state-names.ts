import type { SandboxState } from '../../src/sandbox/sandbox-entities.js';

/** Names of the account as the feed uses them: "Magazine / Location" and magazine names, productIds. */
export interface Names {
  facility(name: string): string | undefined;
  product(productId: string): string | undefined;
}

export function namesOf(state: SandboxState): Names {
  const byUrl = new Map(state.facilities.map((f) => [f.facilityUrl, f]));
  const facilities = new Map<string, string>();
  for (const f of state.facilities) {
    const parent = f.parentFacilityUrl ? byUrl.get(f.parentFacilityUrl) : undefined;
    facilities.set(parent ? `${parent.facilityName} / ${f.facilityName}` : f.facilityName, f.facilityUrl);
  }
  const products = new Map(state.products.map((p) => [p.productId, p.productUrl]));
  return { facility: (n) => facilities.get(n), product: (id) => products.get(id) };
}

/** The key of a (facility, product) pair in the stock maps. */
export const pair = (facilityUrl: string, productUrl: string) => `${facilityUrl} ${productUrl}`;

/** Quantity on hand per (facility, product): the sum over inventory rows. */
export function onHand(state: SandboxState): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of state.inventory)
    m.set(pair(r.facilityUrl, r.productUrl), (m.get(pair(r.facilityUrl, r.productUrl)) ?? 0) + r.quantityOnHand);
  return m;
}

export const near = (a: number, b: number) => Math.abs(a - b) < 1e-6;
export const sortedLines = (xs: string[]) => [...xs].sort().join(' | ');
