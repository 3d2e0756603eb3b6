import { z } from 'zod';
import { budgetSettingsSchema } from './budgets.js';
import type { SandboxCounters } from './counters.js';
import { faultRulesSchema } from './faults.js';
import type { LoggedRequest } from './request-log.js';
import type { SandboxCore } from './sandbox-core.js';
import type { SandboxState } from './sandbox-entities.js';
import type { BudgetSettings, DataSource, FaultRule, LatencySettings } from './sandbox-options.js';
import { issuesText } from './validation.js';

/** The sandbox's control surface; the same operations answer over HTTP under {url}/_admin/ (docs/sandbox.md). */
export interface SandboxAdmin {
  /** Replaces the fault rules (an empty list turns faults off). */
  setFaults(rules: FaultRule[]): void;
  /** The rules in force, with how often each fired. */
  faults(): Array<FaultRule & { fired: number }>;
  /** Replaces the budgets: a class that is absent or null has none. Usage starts from zero. */
  setBudgets(budgets: BudgetSettings): void;
  budgets(): BudgetSettings;
  /** null or { ms: 0 } turns latency off. */
  setLatency(latency: LatencySettings | null): void;
  /** A deep copy of the account's data. */
  state(): SandboxState;
  counters(): SandboxCounters;
  /** The API requests since start or the last reset, oldest first (method, path, query, status, POST body). */
  requests(): LoggedRequest[];
  /** Back to the start data (or `data`, for this reset only), the start settings and zero counters. */
  reset(data?: DataSource): void;
  /**
   * The API key and secret the API (and the admin) accept from now on, instead of the ones before: a rotation, as a
   * secret manager does it. A reset restores the start options' credentials.
   */
  setCredentials(credentials: { key: string; secret: string }): void;
  /** Sum of quantityOnHand over the inventory rows of a (facility, product). */
  stockOnHand(facilityUrl: string, productUrl: string): number;
}

const credentialsSchema = z.object({
  key: z
    .string()
    .min(1)
    .regex(/^[^:]+$/, 'must hold no colon'),
  secret: z.string().min(1),
});

/** The in-process admin of a sandbox; inputs are checked as the HTTP admin checks them. */
export function createAdmin(core: SandboxCore): SandboxAdmin {
  return {
    setFaults(rules) {
      const r = faultRulesSchema.safeParse(rules);
      if (!r.success) throw new Error(`faults: ${issuesText(r.error.issues)}`);
      core.faults.set(r.data);
    },
    faults: () => core.faults.list(),
    setBudgets(budgets) {
      const r = budgetSettingsSchema.safeParse(budgets);
      if (!r.success) throw new Error(`budgets: ${issuesText(r.error.issues)}`);
      core.budgets.set(r.data);
    },
    budgets: () => core.budgets.get(),
    setLatency(latency) {
      if (latency && !(latency.ms >= 0 && (latency.jitterMs ?? 0) >= 0)) throw new Error('latency: ms and jitterMs must be numbers >= 0');
      core.latency =
        latency && (latency.ms > 0 || (latency.jitterMs ?? 0) > 0) ? { ms: latency.ms, jitterMs: latency.jitterMs ?? 0 } : null;
    },
    state: () => core.store.dump(),
    counters: () => structuredClone(core.counters),
    requests: () => core.requestLog.list(),
    reset: (data) => core.reset(data),
    setCredentials(c) {
      const r = credentialsSchema.safeParse(c);
      if (!r.success) throw new Error(`credentials: ${issuesText(r.error.issues)}`);
      core.key = r.data.key;
      core.secret = r.data.secret;
    },
    stockOnHand: (facilityUrl, productUrl) => core.store.inventory.onHand(facilityUrl, productUrl),
  };
}
