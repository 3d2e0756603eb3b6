import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SandboxAdmin } from './admin.js';
import { parseJson, readBody, sendJson, sendMsg } from './http-io.js';
import type { SandboxCore } from './sandbox-core.js';
import type { BudgetSettings, DataSource, FaultRule, LatencySettings } from './sandbox-options.js';
import type { SandboxData } from './sandbox-data-schema.js';
import { ApiError } from './validation.js';

/**
 * /_admin/...: the admin operations over HTTP, with the API's Basic credentials (health needs none).
 * GET health | state | counters | requests | faults | budgets | latency | stock?facilityUrl=&productUrl=;
 * POST faults (a rule list, or {rules}) | budgets | latency (settings, or null) | credentials ({key, secret}) | reset ({data?}).
 * Admin requests are not counted and see no latency, budget or fault.
 */
export async function handleAdmin(
  core: SandboxCore,
  admin: SandboxAdmin,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: string,
) {
  const op = path.replace(/^\/_admin\/?/, '').replace(/\/$/, '');
  const method = req.method ?? 'GET';
  const ok = (value: unknown) => sendJson(res, 200, JSON.stringify(value ?? { ok: true }));
  if (op === 'health' && method === 'GET') return ok({ ok: true, account: core.account, profile: core.profile.name });
  if (!core.authorized(req.headers.authorization))
    return sendMsg(res, 401, 'Unauthorized', { 'www-authenticate': 'Basic realm="inventory-sandbox-admin"' });
  try {
    if (method === 'GET') {
      switch (op) {
        case 'state':
          return ok(admin.state());
        case 'counters':
          return ok(admin.counters());
        case 'requests':
          return ok(admin.requests());
        case 'faults':
          return ok(admin.faults());
        case 'budgets':
          return ok(admin.budgets());
        case 'latency':
          return ok(core.latency ?? { ms: 0, jitterMs: 0 });
        case 'stock': {
          const q = new URLSearchParams(query);
          const facilityUrl = q.get('facilityUrl');
          const productUrl = q.get('productUrl');
          if (!facilityUrl || !productUrl) throw new ApiError(400, 'stock needs the query parameters facilityUrl and productUrl');
          return ok({ facilityUrl, productUrl, quantityOnHand: admin.stockOnHand(facilityUrl, productUrl) });
        }
      }
    } else if (method === 'POST') {
      const body = parseJson(await readBody(req, core.maxBodyBytes));
      switch (op) {
        case 'faults': {
          const rules = Array.isArray(body) ? body : (body as { rules?: unknown })?.rules;
          admin.setFaults((rules ?? []) as FaultRule[]);
          return ok(admin.faults());
        }
        case 'budgets':
          admin.setBudgets((body ?? {}) as BudgetSettings);
          return ok(admin.budgets());
        case 'latency':
          admin.setLatency(body as LatencySettings | null);
          return ok(core.latency ?? { ms: 0, jitterMs: 0 });
        case 'credentials':
          // Answered without the values: they are secrets.
          admin.setCredentials((body ?? {}) as { key: string; secret: string });
          return ok({ ok: true });
        case 'reset':
          admin.reset(resetData(body));
          return ok({ ok: true, account: core.account });
      }
    }
    return sendMsg(res, 404, `No admin operation ${method} /_admin/${op}`);
  } catch (err) {
    if (err instanceof ApiError) return sendMsg(res, err.status, err.msg);
    return sendMsg(res, 400, (err as Error).message);
  }
}

/**
 * The data of a reset over HTTP: a named data set or the data itself, never a file path. A path would let anyone
 * holding the credentials make the sandbox's process read any file it can (and show parts of it in errors).
 */
function resetData(body: unknown): DataSource | undefined {
  const data = (body as { data?: unknown } | null)?.data;
  if (data === undefined || data === 'demo' || data === 'empty') return data;
  if (data !== null && typeof data === 'object' && !Array.isArray(data)) return data as SandboxData;
  throw new ApiError(
    400,
    "reset: data must be 'demo', 'empty' or the data itself (a JSON object); a file is read only at start (--data FILE)",
  );
}
