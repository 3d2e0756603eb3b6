import type { Sandbox } from '../../src/sandbox/sandbox.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `check` holds (a check that throws counts as not yet); answers the ms it took, or null past `limitMs`. */
export async function within(check: () => Promise<boolean>, limitMs: number, everyMs = 100): Promise<number | null> {
  const t = Date.now();
  while (Date.now() - t < limitMs) {
    if (await check().catch(() => false)) return Date.now() - t;
    await sleep(everyMs);
  }
  return null;
}

/** Waits until `check` holds, or throws `timed out waiting for {what}` past `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string, everyMs = 50): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** An order settled as the job promises: created once, completed, with one shipment, shipped. */
export function settledOnce(sandbox: Sandbox, orderId: string): boolean {
  const state = sandbox.admin.state();
  const orders = state.orders.filter((o) => o.orderId === orderId);
  const shipments = state.shipments.filter((s) => orders.some((o) => o.orderUrl === s.primaryOrderUrl));
  return (
    orders.length === 1 &&
    orders[0]!.statusId === 'ORDER_COMPLETED' &&
    shipments.length === 1 &&
    shipments[0]!.statusId === 'SHIPMENT_SHIPPED'
  );
}
