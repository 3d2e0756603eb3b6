import type { Redis } from 'ioredis';
import { expect } from 'vitest';
import type { DryRunPlan } from '../../src/app/dry-run.js';
import { canonicalJson } from '../../src/queue/canonical-hash.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';

interface Call {
  method: string;
  path: string;
  body?: unknown;
}

/** A call as one comparable string: method, path and the body with its keys sorted. */
export const callKey = (c: Call): string => `${c.method} ${c.path} ${canonicalJson(c.body ?? null)}`;

/**
 * The writes a dry run planned, with each `{shipmentUrl}` replaced by the URL of the shipment the sandbox holds for
 * that order (the service assigns it under the `observed` profile), as sorted comparable strings.
 */
export function plannedWrites(plan: DryRunPlan, sandbox: Sandbox): string[] {
  const shipments = sandbox.admin.state().shipments;
  return plan.records
    .flatMap((r) => {
      const orderUrl = (
        r.calls.find((c) => (c.body as { primaryOrderUrl?: string }).primaryOrderUrl)?.body as { primaryOrderUrl?: string } | undefined
      )?.primaryOrderUrl;
      return r.calls.map((c) => {
        if (c.path !== '{shipmentUrl}') return c;
        const shipment = shipments.find((s) => s.primaryOrderUrl === orderUrl);
        if (!shipment) throw new Error(`no shipment in the sandbox for ${r.key} (${orderUrl})`);
        return { ...c, path: shipment.shipmentUrl };
      });
    })
    .map(callKey)
    .sort();
}

/** The writes the sandbox received from the `from`th logged request on, as sorted comparable strings. */
export function loggedWrites(sandbox: Sandbox, from = 0): string[] {
  return sandbox.admin
    .requests()
    .slice(from)
    .filter((r) => r.method !== 'GET')
    .map(callKey)
    .sort();
}

/** What a dry run may leave under its prefix: the catalog cache, budget counters, BullMQ queue metadata. Nothing else. */
export async function expectOnlyCachesUnder(redis: Redis, prefix: string): Promise<void> {
  const keys = await redis.keys(`${prefix}:*`);
  const other = keys.filter((k) => !/^(catalog|budget)/.test(k.slice(prefix.length + 1)) && !/:meta$/.test(k));
  expect(other).toEqual([]);
}
