import type { Clock } from './clock.js';
import type { SandboxCounters } from './counters.js';
import type { ProfileRules } from './profile-rules.js';
import type { StatusHistoryEntry } from './sandbox-entities.js';
import type { SandboxStore } from './store.js';
import { badRequest } from './validation.js';

/** What a request handler works with. */
export interface ApiContext {
  store: SandboxStore;
  clock: Clock;
  counters: SandboxCounters;
  /** How answers look and which refusals are 403 (the sandbox's profile). */
  profile: ProfileRules;
  /** /{account}/api/userlogin/{id}: the user every change is recorded against. */
  userLoginUrl: string;
}

export function historyEntry(ctx: ApiContext, statusId: string | null): StatusHistoryEntry {
  return { statusId, txStamp: ctx.clock.now(), userLoginUrl: ctx.userLoginUrl };
}

/**
 * Fails with 400 when a read-only or create-only field is sent with a value other than the entity's as it was
 * answered (`entity` is the profile's view); an id sent as "328966" or 328966 is the same id.
 */
export function checkReadOnly(entity: object, body: Record<string, unknown>, fields: readonly string[], what: string): void {
  const e = entity as Record<string, unknown>;
  for (const f of fields) {
    if (f in body && !same(body[f], e[f])) throw badRequest(`${what}: ${f} is read-only or set only at creation`);
  }
}

function same(a: unknown, b: unknown): boolean {
  if (JSON.stringify(a) === JSON.stringify(b)) return true;
  const scalar = (x: unknown) => typeof x === 'string' || typeof x === 'number';
  return scalar(a) && scalar(b) && String(a) === String(b);
}
