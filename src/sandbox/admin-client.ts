import type { SandboxCounters } from './counters.js';
import type { LoggedRequest } from './request-log.js';
import type { SandboxState } from './sandbox-entities.js';
import type { BudgetSettings, FaultRule, LatencySettings, SandboxProfile } from './sandbox-options.js';
import type { SandboxData } from './sandbox-data-schema.js';

/** The admin of a sandbox running elsewhere (another process, `inventory-sync sandbox`), over {url}/_admin/. */
export interface RemoteSandboxAdmin {
  health(): Promise<{ ok: boolean; account: string; profile: SandboxProfile }>;
  setFaults(rules: FaultRule[]): Promise<void>;
  setBudgets(budgets: BudgetSettings): Promise<void>;
  setLatency(latency: LatencySettings | null): Promise<void>;
  state(): Promise<SandboxState>;
  counters(): Promise<SandboxCounters>;
  requests(): Promise<LoggedRequest[]>;
  /** A named data set or the data itself; over HTTP the sandbox reads no file (start it with --data FILE instead). */
  reset(data?: 'demo' | 'empty' | SandboxData): Promise<void>;
  stockOnHand(facilityUrl: string, productUrl: string): Promise<number>;
}

export function sandboxAdminClient(o: { url: string; key: string; secret: string }): RemoteSandboxAdmin {
  const authorization = `Basic ${Buffer.from(`${o.key}:${o.secret}`).toString('base64')}`;
  const call = async <T>(method: 'GET' | 'POST', op: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${o.url}/_admin/${op}`, {
      method,
      headers: { authorization, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`sandbox admin ${method} ${op}: HTTP ${res.status} ${text}`);
    return JSON.parse(text) as T;
  };
  return {
    health: () => call('GET', 'health'),
    setFaults: async (rules) => void (await call('POST', 'faults', rules)),
    setBudgets: async (budgets) => void (await call('POST', 'budgets', budgets)),
    setLatency: async (latency) => void (await call('POST', 'latency', latency)),
    state: () => call('GET', 'state'),
    counters: () => call('GET', 'counters'),
    requests: () => call('GET', 'requests'),
    reset: async (data) => void (await call('POST', 'reset', data === undefined ? {} : { data })),
    stockOnHand: async (facilityUrl, productUrl) =>
      (await call<{ quantityOnHand: number }>('GET', `stock?${new URLSearchParams({ facilityUrl, productUrl })}`)).quantityOnHand,
  };
}
