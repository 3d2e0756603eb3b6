/** What the sandbox has served since start or the last reset (admin requests are not counted). */
export interface SandboxCounters {
  /** API requests received, whatever their outcome. */
  requests: number;
  /** Authenticated API requests by budget class; a collection GET counts in both `get` and `collection`. */
  byClass: { get: number; post: number; collection: number };
  /** Answers by HTTP status ("200", "400", ...); dropped and hung requests have none. */
  byStatus: Record<string, number>;
  /** Faults injected, by kind. */
  faults: Record<string, number>;
  /** Requests answered 429. */
  rateLimited: number;
  /** Entities created. */
  creates: { order: number; shipment: number; variance: number };
  /** Successful product updates (POST to a product URL). */
  productUpdates: number;
  /** Successful modifications of orders, shipments and variances (POST to their URL). */
  modifications: number;
  /** Successful POSTs to action URLs. */
  actions: number;
}

export function newCounters(): SandboxCounters {
  return {
    requests: 0,
    byClass: { get: 0, post: 0, collection: 0 },
    byStatus: {},
    faults: {},
    rateLimited: 0,
    creates: { order: 0, shipment: 0, variance: 0 },
    productUpdates: 0,
    modifications: 0,
    actions: 0,
  };
}
