import type { Clock } from './clock.js';
import type { SandboxCounters } from './counters.js';
import type { StatusHistoryEntry } from './sandbox-entities.js';
import type { SandboxStore } from './store.js';
import { badRequest } from './validation.js';

/** What a request handler works with. */
export interface ApiContext {
  store: SandboxStore;
  clock: Clock;
  counters: SandboxCounters;
  /** /{account}/api/userlogin/{id}: the user every change is recorded against. */
  userLoginUrl: string;
}

export function historyEntry(ctx: ApiContext, statusId: string | null): StatusHistoryEntry {
  return { statusId, txStamp: ctx.clock.now(), userLoginUrl: ctx.userLoginUrl };
}

/** Fails with 400 when a read-only or create-only field is sent with a value other than the entity's. */
export function checkReadOnly(entity: object, body: Record<string, unknown>, fields: readonly string[], what: string): void {
  const e = entity as Record<string, unknown>;
  for (const f of fields) {
    if (f in body && JSON.stringify(body[f]) !== JSON.stringify(e[f])) throw badRequest(`${what}: ${f} is read-only or set only at creation`);
  }
}
